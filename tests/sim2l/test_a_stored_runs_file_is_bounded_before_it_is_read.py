"""A stored run's file is bounded before it is read (review r41 R41-4), and read only as a regular file of the run.

``resources/read`` of ``sim2l://<tool>/<run>/<file>`` read the whole file (then base64 for a blob)
whatever its size; what a run writes commonly follows the call's arguments. Now its size is looked at
first (``fstat`` of the file opened without following a link): past the server's ``max_result_bytes`` (256 MiB by
default, lowered here; it was a fixed 256 MiB whatever the server's setting, files42) the read fails saying so,
unread. A link out of the run or a FIFO is no file of the run (-32002), never followed nor waited on; a link inside
the run reads the file it names.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from support import mcp_client, serve

from nanohubmcp import MCPServer

pytest.importorskip("papermill")
pytest.importorskip("simtool")

COOLING = Path(__file__).resolve().parents[2] / "examples" / "sim2l" / "cooling" / "cooling.ipynb"
LIMIT = 1024 * 1024


async def _stored_run(client: Any, runner: Any) -> tuple[str, Path]:
    """A call of the cooling tool: its run and the run's stored folder."""
    result = await client.call_tool("cooling", {})
    assert not result.is_error, result.content
    run = result.structured_content["run"]
    return run, Path(runner.store.find(run))


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.anyio
async def test_a_file_past_the_bound_is_refused_naming_its_size(tmp_path: Path) -> None:
    server = MCPServer("sim2l-files", state_dir=str(tmp_path / "state"), max_result_bytes=LIMIT)
    runner = server.add_sim2l(str(COOLING)).extra["sim2l"]
    with serve(server) as url, anyio.fail_after(240):
        async with mcp_client(url + "mcp") as client:
            run, folder = await _stored_run(client, runner)
            (folder / "small.txt").write_bytes(b"s" * (LIMIT // 2))
            with open(folder / "big.dat", "wb") as big:
                big.truncate(2 * LIMIT)  # (sparse)
            small = await client.read_resource(f"sim2l://cooling/{run}/small.txt")
            with pytest.raises(MCPError) as refused:
                await client.read_resource(f"sim2l://cooling/{run}/big.dat")
    assert small.contents[0].text == "s" * (LIMIT // 2)
    message = refused.value.error.message
    assert f"is {2 * LIMIT} bytes, more than the {LIMIT} a resources/read returns (the server's max_result_bytes; " \
        "raise it to read the file)" in message, message


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.anyio
async def test_a_link_out_or_a_fifo_is_no_file_of_the_run(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET-OUTSIDE-THE-RUN")
    server = MCPServer("sim2l-files", state_dir=str(tmp_path / "state"))
    runner = server.add_sim2l(str(COOLING)).extra["sim2l"]
    with serve(server) as url, anyio.fail_after(240):
        async with mcp_client(url + "mcp") as client:
            run, folder = await _stored_run(client, runner)
            (folder / "kept.txt").write_text("KEPT")
            (folder / "inner.txt").symlink_to(folder / "kept.txt")
            (folder / "out.txt").symlink_to(secret)
            os.mkfifo(folder / "pipe.txt")
            inner = await client.read_resource(f"sim2l://cooling/{run}/inner.txt")
            refused = {}
            for name in ("out.txt", "pipe.txt"):
                with pytest.raises(MCPError) as caught:
                    await client.read_resource(f"sim2l://cooling/{run}/{name}")
                refused[name] = (caught.value.error.code, caught.value.error.message)
    assert inner.contents[0].text == "KEPT"
    for name, (code, message) in refused.items():
        assert code == -32002, (name, code, message)
        assert f"saved no file '{name}'" in message, message
        assert "SECRET" not in message
