"""Fixtures for every test. Helpers live in ``tests/support.py`` (``from support import ...``):
sub-folders have their own ``conftest.py``, so ``from support import`` would be ambiguous."""

from __future__ import annotations

import os

import pytest

# Notebook servers require a generated token by default; test kernels (and every process the
# tests start) inherit "no token" unless a test removes this to check the default.
os.environ.setdefault("MCP_TOKEN", "")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _state_dir_per_test(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test's servers (and the server processes it starts) keep their job store in a fresh
    directory, never in the user's data directory."""
    monkeypatch.setenv("NANOHUBMCP_STATE_DIR", str(tmp_path_factory.mktemp("state")))
