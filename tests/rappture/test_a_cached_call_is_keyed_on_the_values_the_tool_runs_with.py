"""A Rappture tool registered with ``cache=True`` keys its cache on the values it runs with: a
temperature declared in K given as ``300``, ``"300K"``, ``"300 K"``, ``"3e2 K"`` or ``"26.85C"``
(each converted to ``300K`` in the driver) is one call, run once; another value is another call.
Unit text of a shape the converter refuses is refused as before, never read by pint.

Found by a fresh-scientist trial (trial 15, F14): the key was made of the spelling, so each of
those spellings ran the identical simulation again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer

FERMI = Path(__file__).resolve().parents[2] / "examples" / "rappture" / "fermi" / "tool.xml"
CACHE = "io.nanohub/cache"


async def _cache_of(session: Any, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await session.call_tool("fermi", arguments)
    assert not result.is_error, result.content
    return dict(result.meta[CACHE])


@pytest.mark.anyio
@pytest.mark.timeout(120)
async def test_spellings_of_one_temperature_are_one_cached_run(tmp_path: Path) -> None:
    pytest.importorskip("pint")
    server = MCPServer("rcache", state_dir=str(tmp_path / "state"))
    server.add_rappture_tool(FERMI, cache=True, plot=False)
    with serve(server) as url:
        async with mcp_client(url + "mcp") as session:
            assert await _cache_of(session, {"temperature": "300 K"}) == {"hit": False}
            for spelling in (300, "300K", "300 K", 300.0, "3e2 K", "26.85C", "0.3 kK"):
                assert await _cache_of(session, {"temperature": spelling}) == {"hit": True}, spelling
            assert await _cache_of(session, {}) == {"hit": True}, "the default is 300K"
            assert await _cache_of(session, {"temperature": 300, "Ef": "0 eV"}) == {"hit": True}
            assert await _cache_of(session, {"temperature": "301K"}) == {"hit": False}
            assert await _cache_of(session, {"temperature": "27.85C"}) == {"hit": True}

            hostile = await session.call_tool("fermi", {"temperature": "1 K**9**9**9"})
            assert hostile.is_error
            assert "temperature" in hostile.content[0].text
            assert await _cache_of(session, {"temperature": 301}) == {"hit": True}, "still serving"
