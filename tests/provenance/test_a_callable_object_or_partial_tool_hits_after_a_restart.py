"""A callable object or a ``functools.partial`` registered as a cached tool has a code hash that is the same
in every process: the code of its class's methods, of the partial's function; a server started again answers
its repeated calls from ``cache.sqlite3``, and its provenance record names that code.

Found by a fresh-user trial (trial36 Z6): the hash of such a tool was of its ``repr``, which holds the object's
address, new in every process, so after each restart its first call ran again and another entry was stored.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.server.provenance.code_facts import code_hash, code_of

CACHE = "io.nanohub/cache"


class Scaler:
    def __init__(self) -> None:
        self.k = 2.0

    def __call__(self, x: float) -> float:
        """x times k."""
        return x * self.k


def poly(x: float, scale: float = 1.0) -> float:
    """x times scale."""
    return x * scale


def answer(server: MCPServer, tool: str) -> tuple[float, dict[str, Any]]:
    result = server.call(tool, {"x": 2.0})
    return float(result["content"][0]["text"]), result["_meta"][CACHE]


def started(state: Path) -> tuple[MCPServer, list[Any]]:
    """A server as a script makes it at each start: new objects (kept alive: no address reused)."""
    server = MCPServer("callables", state_dir=str(state))
    objects = [Scaler(), functools.partial(poly, scale=3.0)]
    server.tool(name="callable", cache=True)(objects[0])
    server.tool(name="partial", cache=True)(objects[1])
    return server, objects


def test_a_callable_object_and_a_partial_hit_after_a_restart(tmp_path: Path) -> None:
    first, kept = started(tmp_path)
    with serve(first):
        assert answer(first, "callable") == (4.0, {"hit": False})
        assert answer(first, "partial") == (6.0, {"hit": False})
    again, kept_too = started(tmp_path)
    with serve(again):
        assert answer(again, "callable") == (4.0, {"hit": True})
        assert answer(again, "partial") == (6.0, {"hit": True})
    for name in ("callable", "partial"):
        earlier, now = first.core.registry.tools.get(name), again.core.registry.tools.get(name)
        assert code_hash(earlier) == code_hash(now)
    record = code_of(again.core.registry.tools.get("partial"))
    assert (record["module"], record["qualname"]) == (__name__, "poly")
    assert "def poly" in record["source"]
    assert kept
    assert kept_too
