"""Fixtures for every test. Helpers live in ``tests/support.py`` (``from support import ...``):
sub-folders have their own ``conftest.py``, so ``from support import`` would be ambiguous."""

from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
