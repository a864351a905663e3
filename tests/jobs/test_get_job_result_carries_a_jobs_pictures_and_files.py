"""``get_job_result`` of a done job carries the job's pictures and files, not only its JSON.

Found by a fresh-user trial (trial 5, F5): a background Rappture run's plot and a submit run's
output files reached only ``tasks/result``; ``get_job_result`` answered one JSON text block, and
most assistants (and the official Python client, which has no tasks API) have only
``get_job_result``. Now its answer is the JSON text block (and the same structured content as
before), then the non-text blocks of the job's result in their order. REST polling answers the
JSON as before.

A real server, polled with the official ``mcp`` client and over REST.
"""

from __future__ import annotations

import base64
import json
import time
from typing import Any

import pytest
from job_server import Routes, wait_until
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.protocol.media import Image

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
FILE = {"type": "resource", "resource": {"uri": "file:///runs/out_x.txt", "mimeType": "text/plain", "text": "1 2 3"}}


def build() -> MCPServer:
    server = MCPServer("pictures", job_store="memory")

    @server.async_tool()
    def plot(n: int) -> dict:
        """A number and its plot."""
        return {"n": n, "plot": Image(data=PNG, format="png")}

    @server.async_tool()
    def files() -> list:
        """A note and an output file."""
        return ["see the file", FILE]

    @server.async_tool()
    def plain() -> dict:
        """Numbers only."""
        return {"n": 1}

    return server


async def finished(client: Any, tool: str, arguments: dict[str, Any]) -> Any:
    started = await client.call_tool(tool, arguments)
    job_id = started.structured_content["job_id"]
    deadline = time.monotonic() + 30
    while True:
        answer = await client.call_tool("get_job_result", {"job_id": job_id})
        if answer.structured_content["status"] != "running":
            return answer
        assert time.monotonic() < deadline, "the job did not end"
        time.sleep(0.05)


@pytest.mark.anyio
async def test_a_done_jobs_images_and_files_follow_its_json() -> None:
    with serve(build()) as url:
        async with mcp_client(url + "mcp") as client:
            drawn = await finished(client, "plot", {"n": 3})
            status = drawn.structured_content
            assert status["status"] == "done"
            assert status["result"] == {"n": 3, "plot": "<image: content[1]>"}  # the block after the JSON text
            assert [block.type for block in drawn.content] == ["text", "image"]
            assert json.loads(drawn.content[0].text) == status
            assert (drawn.content[1].mime_type, base64.b64decode(drawn.content[1].data)) == ("image/png", PNG)

            kept = await finished(client, "files", {})
            assert [block.type for block in kept.content] == ["text", "resource"]
            assert json.loads(kept.content[0].text) == kept.structured_content
            assert (str(kept.content[1].resource.uri), kept.content[1].resource.text) == ("file:///runs/out_x.txt",
                                                                                          "1 2 3")

            only = await finished(client, "plain", {})
            assert [block.type for block in only.content] == ["text"]  # nothing else to carry
        rest = Routes(int(url.rstrip("/").rsplit(":", 1)[1]))
        job_id = rest.rest_start("plot", {"n": 3})[1]["job_id"]
        polled = wait_until(lambda: (p := rest.rest_poll(job_id)[1])["status"] == "done" and p, "the REST job")
        assert polled == {**status, "job_id": job_id}  # REST: the JSON, as before
