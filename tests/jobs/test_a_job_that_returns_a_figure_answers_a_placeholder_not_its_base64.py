"""A job whose result IS a picture (or audio, a file, a list of blocks) answers ``get_job_result``
with a ``"<image: content[i]>"`` / ``"<content[i]>"`` placeholder in its JSON and the picture
only as its own block — as a job returning ``{"plot": fig}`` always did. ``i`` is the block's index in
that answer, after the JSON text (trial44 T44-10): ``content[1]`` for the first.

Found by a fresh-scientist trial (trial 15, F7): ``return fig`` from an ``--async`` tool (threads
or processes) put the PNG's whole base64 (28 KB) into the JSON text block the model reads, and
into structuredContent's ``result``, besides the image block. A direct call, ``tasks/result`` and
a job read back after a restart are checked too.

A real server (threads and processes executors, an SQLite job store), the official ``mcp``
client and raw 2025-11-25 ``tasks/*`` requests.
"""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from job_server import Routes
from support import mcp_client, serve

from nanohubmcp import MCPServer

WAV = b"RIFF\x24\x00\x00\x00WAVEfmt " + bytes(24)
BLOB = b"\x00\x01\x02 not an image, not audio" * 100


def figure(n: int) -> Any:
    """A matplotlib figure (module level: the processes executor runs it in a process of its own)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot(range(n))
    return fig


def build(state_dir: Path) -> MCPServer:
    server = MCPServer("figure-jobs", state_dir=str(state_dir))
    server.async_tool(name="fig_threads")(figure)
    server.async_tool(name="fig_processes", executor="processes")(figure)
    server.tool(name="fig_direct")(figure)

    @server.async_tool()
    def sound() -> bytes:
        """A WAV file's bytes (an audio block)."""
        return WAV

    @server.async_tool()
    def blob() -> bytes:
        """Bytes of no known kind (an embedded resource)."""
        return BLOB

    @server.async_tool()
    def captioned(n: int) -> list:
        """A figure and its caption (a list of blocks)."""
        return [figure(n), f"{n} points"]

    @server.async_tool()
    def array(n: int) -> Any:
        """A numpy array (data: structured content, no picture)."""
        import numpy as np

        return np.arange(n)

    return server


async def done(client: Any, tool: str, arguments: dict[str, Any]) -> tuple[str, Any]:
    job_id = (await client.call_tool(tool, arguments)).structured_content["job_id"]
    deadline = time.monotonic() + 60
    while (answer := await client.call_tool("get_job_result", {"job_id": job_id})).structured_content[
        "status"
    ] == "running":
        assert time.monotonic() < deadline, f"the {tool} job did not end"
        await anyio.sleep(0.05)
    assert answer.structured_content["status"] == "done", answer
    return job_id, answer


def assert_placeholder_answer(answer: Any, result: Any, kinds: list[str]) -> None:
    """The JSON text is small, equals the structured content, and ``result`` is ``result``; the blocks follow."""
    text = answer.content[0].text
    assert len(text) < 500, f"the JSON text carries the picture: {len(text)} characters"
    assert json.loads(text) == answer.structured_content
    assert answer.structured_content["result"] == result
    assert [block.type for block in answer.content] == ["text", *kinds]  # content[1] on: the named blocks


@pytest.mark.anyio
async def test_a_job_returning_a_figure_answers_a_placeholder_and_one_image(tmp_path: Path) -> None:
    answers: dict[str, tuple[str, Any]] = {}
    with serve(build(tmp_path)) as url:
        async with mcp_client(url + "mcp") as client:
            direct = await client.call_tool("fig_direct", {"n": 5})
            assert [block.type for block in direct.content] == ["image"]  # the direct path as it was
            assert direct.structured_content is None

            for tool in ("fig_threads", "fig_processes"):
                answers[tool] = await done(client, tool, {"n": 5})
                job_id, answer = answers[tool]
                assert_placeholder_answer(answer, "<image: content[1]>", ["image"])
                png = base64.b64decode(answer.content[1].data)
                assert png.startswith(b"\x89PNG")
                assert answer.content[1].mime_type == "image/png"

            answers["sound"] = await done(client, "sound", {})
            assert_placeholder_answer(answers["sound"][1], "<content[1]>", ["audio"])
            answers["blob"] = await done(client, "blob", {})
            assert_placeholder_answer(answers["blob"][1], "<content[1]>", ["resource"])
            answers["captioned"] = await done(client, "captioned", {"n": 3})
            assert_placeholder_answer(answers["captioned"][1], ["<image: content[1]>", "3 points"], ["image"])

            _, numbers = await done(client, "array", {"n": 4})  # data stays data
            assert numbers.structured_content["result"] == [0, 1, 2, 3]  # as a list reads (trial26 F7)
            assert [block.type for block in numbers.content] == ["text"]

        # tasks/result answers the job's own CallToolResult: the image block alone.
        routes = Routes(int(url.rstrip("/").rsplit(":", 1)[1]))
        session = routes.session()
        created = routes.rpc(
            session, "tools/call", {"name": "fig_threads", "arguments": {"n": 5}, "task": {"ttl": 60000}}
        )
        task_id = created["result"]["task"]["taskId"]
        result = routes.rpc(session, "tasks/result", {"taskId": task_id})["result"]
        assert [block["type"] for block in result["content"]] == ["image"]
        assert "structuredContent" not in result

    # Read back by id after a restart (stored results): the same answers.
    with serve(build(tmp_path)) as url:
        async with mcp_client(url + "mcp") as client:
            for tool, (job_id, before) in answers.items():
                again = await client.call_tool("get_job_result", {"job_id": job_id})
                assert again.structured_content == before.structured_content, tool
                assert [block.type for block in again.content] == [block.type for block in before.content]
