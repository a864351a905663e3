"""A Sim2L ``File`` (or ``Image``) input sent as ``{"name": ..., "base64": ...}`` whose name no file can
have — a NUL in it, a lone UTF-16 surrogate, more than 255 bytes — is refused as invalid arguments
naming the input and saying what to fix (REST 400, JSON-RPC -32602), before any run: no kernel starts.

Found by a fresh-user trial (trial 28, T14): a name holding U+0000 reached ``open()`` in the run
directory, and the call answered REST 500 ``{"error": "embedded null byte"}`` (an ``isError`` result
over MCP) with a traceback in the log and a provenance record of a failed run.
"""

from __future__ import annotations

import base64
from pathlib import Path

import anyio
import pytest
from jobs.job_server import Routes
from mcp.shared.exceptions import MCPError
from support import mcp_client, serve

from nanohubmcp import MCPServer

NOTEBOOK = Path(__file__).parent / "data" / "allkinds" / "allkinds.ipynb"
DATA = base64.b64encode(b"some text").decode("ascii")


@pytest.mark.anyio
@pytest.mark.timeout(120)
async def test_a_file_name_no_file_can_have_is_refused_naming_the_input(tmp_path: Path) -> None:
    pytest.importorskip("papermill")
    pytest.importorskip("simtool")
    server = MCPServer("sim2l-names", state_dir=str(tmp_path), argument_errors="protocol")
    server.add_sim2l(str(NOTEBOOK), name="kinds")
    runner = server.core.registry.tools.get("kinds").extra["sim2l"]

    with serve(server) as url:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        status, body = routes.rest_start("kinds", {"notes": {"name": "x\u0000y", "base64": DATA}})
        assert status == 400, body
        assert body["error"] == (
            "Invalid arguments for tool 'kinds': input 'notes': the file name \"x\\u0000y\" holds U+0000 (NUL), "
            "which no file name may hold: give a \"name\" without it"
        )
        for value, said in (  # sent as JSON escapes (\ud800): the official client cannot encode a lone surrogate
            ({"name": "a\ud800.txt", "base64": DATA}, 'the file name "a\\ud800.txt" holds a lone UTF-16 surrogate'),
            # 100 characters (the schema allows 255), 300 bytes
            ({"name": "\u20ac" * 100, "base64": DATA}, 'is 300 bytes long (UTF-8); a file name may have at most 255: '
                                                       'give a shorter "name"'),
            ({"name": "dir/\u0000", "base64": DATA}, "holds U+0000 (NUL)"),  # what is left once the folder is dropped
        ):
            status, body = routes.rest_start("kinds", {"notes": value})
            assert status == 400, body
            assert body["error"].startswith("Invalid arguments for tool 'kinds': input 'notes': "), body
            assert said in body["error"], body

        async with mcp_client(url + "mcp") as client:
            with anyio.fail_after(60), pytest.raises(MCPError) as refused:
                await client.call_tool("kinds", {"picture_in": {"name": "p\u0000.png", "base64": DATA}})
            assert refused.value.error.code == -32602, refused.value.error
            assert refused.value.error.message.startswith(
                "Invalid arguments for tool 'kinds': input 'picture_in': the file name \"p\\u0000.png\" holds U+0000"
            ), refused.value.error

    assert runner.store.runs == 0  # refused before papermill: no run, no kernel
    assert not list((tmp_path / "sim2l").glob("*/*/*")), "no run was stored"
