"""What a job's record keeps of a large call's arguments is made on a worker thread, each value written to
JSON once (review r21 M3).

Bounding the arguments to 64 KiB (``kept_arguments``) ran in ``JobStore.create`` on the event loop and wrote
them three times: all of them to size them, each value again to sort them, the replaced ones a third time
to hash them (2.5 s for a 15 MB argument, every other client waiting). For a large request (a body of
1 MiB or more) they are now bounded on a worker thread, and each value is written once.

A real server over HTTP and the official ``mcp`` client; every thread the server starts is watched with
``threading.setprofile``, which records each call of the arguments' JSON writer that is handed the large
value (alone or in the arguments) and on which thread.
"""

from __future__ import annotations

import threading
import types
from typing import Any

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.schema import kept_arguments

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]
SIZE = 1 << 21  # characters of the large argument: a large request (LARGE_MESSAGE_BYTES, 1 MiB)


def holds_the_large_value(value: object) -> bool:
    if isinstance(value, str):
        return len(value) == SIZE
    return isinstance(value, dict) and any(isinstance(item, str) and len(item) == SIZE for item in value.values())


async def test_the_large_value_is_written_once_and_not_on_the_loop() -> None:
    writes: list[str] = []
    writer = kept_arguments.arguments_json.__code__

    def profile(frame: types.FrameType, event: str, _arg: Any) -> None:
        if event == "call" and frame.f_code is writer and holds_the_large_value(frame.f_locals.get("value")):
            writes.append(threading.current_thread().name)

    server = MCPServer("large-job", provenance=False)  # (a provenance record writes the arguments on its own thread)

    @server.async_tool()
    def measure(label: str, data: str) -> int:
        """How long the data is."""
        return len(data)

    @server.tool()
    async def loop_thread() -> str:
        """The thread of the server's event loop."""
        return threading.current_thread().name

    threading.setprofile(profile)  # every thread started from here on: the server's loop and its workers
    try:
        with serve(server) as url:
            async with mcp_client(url + "mcp") as client:
                loop = (await client.call_tool("loop_thread", {})).content[0].text
                started = await client.call_tool("measure", {"label": "run 7", "data": "d" * SIZE})
                job_id = started.structured_content["job_id"]
                with anyio.fail_after(60):
                    while (polled := (await client.call_tool("get_job_result", {"job_id": job_id}))
                           .structured_content)["status"] == "running":
                        await anyio.sleep(0.05)
    finally:
        threading.setprofile(None)  # type: ignore[arg-type]
    assert polled["status"] == "done", polled
    assert polled["result"] == SIZE  # the function got it whole
    assert len(writes) == 1, writes
    assert loop not in writes, writes
