"""A cached tool's key is never made from a reach cut short (a fresh-user trial, W17: the walk stopped
silently after 256 objects, so a tool calling a chain of 300 helpers of its own got a key that left out
the data the last of them read, and a restart with a changed data file answered the old result as a
hit).

A chain of 300 helpers is now walked whole; a tool reaching more than ``code_reach.MAX_REACHED``
objects runs on every call, answered with ``"stored": false`` and a ``"reason"``, and the warning
is logged once for the tool.
"""

from __future__ import annotations

import logging
import types
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")

CACHE = "io.nanohub/cache"


def chain(length: int, *, run_through: bool = True) -> dict[str, Any]:
    """A module's namespace: ``deep(x)`` calls ``h0`` → ``h1`` → … and the last reads ``DATA``; not
    ``run_through``, each helper reads it and returns for a positive ``x`` (the chain is only named)."""
    step = "return h{next}(x)" if run_through else "return h{next}(x) if x < 0 else float(DATA.sum()) * x"
    lines = [f"def h{i}(x):\n    {step.format(next=i + 1)}\n" for i in range(length - 1)]
    lines.append(f"def h{length - 1}(x):\n    return float(DATA.sum()) * x\n")
    lines.append('def deep(x: float) -> float:\n    """Through the chain."""\n    return h0(x)\n')
    namespace = types.ModuleType(f"chain{length}").__dict__
    namespace["DATA"] = np.array([1.0, 2.0])
    exec("\n".join(lines), namespace)
    return namespace


def serve(namespace: dict[str, Any], state: Path) -> Any:
    from nanohubmcp import MCPServer

    server = MCPServer("chain", state_dir=str(state))
    server.tool(cache=True)(namespace["deep"])
    server.start(port=0)
    return server


def answer(server: Any) -> tuple[str, dict[str, Any]]:
    result = server.call("deep", {"x": 1})
    return result["content"][0]["text"], result["_meta"][CACHE]


def test_data_read_at_the_end_of_a_chain_of_300_helpers_is_in_the_key(tmp_path: Path) -> None:
    first = serve(chain(300), tmp_path / "state")
    try:
        assert [answer(first), answer(first)] == [("3.0", {"hit": False}), ("3.0", {"hit": True})]
    finally:
        first.stop()
    restarted = chain(300)  # the program started again, its data file changed
    restarted["DATA"] = np.array([5.0, 5.0])
    second = serve(restarted, tmp_path / "state")
    try:
        assert answer(second) == ("10.0", {"hit": False})
    finally:
        second.stop()


def test_a_tool_reaching_more_than_the_bound_runs_every_call_and_says_why(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from nanohubmcp.server.provenance import code_reach

    namespace = chain(code_reach.MAX_REACHED + 10, run_through=False)
    server = serve(namespace, tmp_path / "state")
    reason = f"reaches more than {code_reach.MAX_REACHED} functions, classes and values"
    uncached = {"hit": False, "stored": False, "reason": reason}
    try:
        with caplog.at_level(logging.WARNING, logger="nanohubmcp.cache"):
            assert [answer(server), answer(server)] == [("3.0", uncached), ("3.0", uncached)]
            namespace["DATA"] = np.array([5.0, 5.0])
            assert answer(server) == ("10.0", uncached)
    finally:
        server.stop()
    warned = [r.getMessage() for r in caplog.records if r.name == "nanohubmcp.cache"]
    assert warned == [f"deep: not cached: its code {reason}, more than its cache key can cover"]
