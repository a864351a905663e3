"""Helpers for the stdio tests: the command lines desktop clients would run, and the two official
stdio clients (``mcp.client.stdio`` speaks the 2025-11-25 handshake era, fastmcp 4.x's stdio client
the stateless 2026-07-28 era)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from support import ROOT, fastmcp_client, official_client, run_command

__all__ = ["EXAMPLES", "FEATURES_APP", "ROOT", "bridge_command", "example_command", "fastmcp_client",
           "official_client", "run_command", "served"]

EXAMPLES = ROOT / "examples"
FEATURES_APP = Path(__file__).resolve().parent / "features_app.py"


def example_command(name: str) -> list[str]:
    """``python examples/<name>/start_mcp.py --transport stdio``."""
    return [sys.executable, str(EXAMPLES / name / "start_mcp.py"), "--transport", "stdio"]


def bridge_command(url: str, *options: str) -> list[str]:
    """``python -m nanohubmcp bridge URL [options]``."""
    return [sys.executable, "-m", "nanohubmcp", "bridge", url, *options]


@contextlib.contextmanager
def served(app: Path | str, **options: Any) -> Iterator[str]:
    """Load an app file's ``server`` in this process and serve it on 127.0.0.1:<free port>;
    yields its base URL."""
    from nanohubmcp.nanohub.child import load_app

    server = load_app(app)
    server.start(host="127.0.0.1", port=0, **options)
    try:
        assert server.url is not None
        yield server.url
    finally:
        server.stop()
