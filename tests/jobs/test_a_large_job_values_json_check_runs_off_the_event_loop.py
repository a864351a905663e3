"""Whether a job's value is JSON (read back as the value when polled) is found off the event loop for a value
shaped there too (review r20, M3).

``json_spelled`` walks a list to tell data from pictures and content (bd9c257 added a second, deeper walk:
a list mixing a figure with data is not JSON), and it ran on the event loop when a job ended: a job returning
100,000 records held every other client for about a second. It now runs where the value is shaped, on the
worker pool for a large or costly value (``convert.costly``).

The list's last item is a ``str`` whose class, as ``isinstance`` reads it, says which thread looked at it: a
real object, nothing of the server replaced.
"""

from __future__ import annotations

import threading

from support import wait_until

from nanohubmcp import MCPServer
from nanohubmcp.server.results.convert import COSTLY_ITEMS
from nanohubmcp.testing import in_memory


def test_the_walk_of_a_large_job_value_is_not_on_the_event_loop() -> None:
    looked: list[str] = []

    class Watched(str):
        @property  # type: ignore[misc]
        def __class__(self) -> type:  # (isinstance reads it when the type alone does not decide)
            looked.append(threading.current_thread().name)
            return Watched

    server = MCPServer("jobs")

    @server.async_tool()
    def records() -> list[object]:
        """Many records and one watched text."""
        return [{"n": i} for i in range(COSTLY_ITEMS + 1)] + [Watched("last")]

    @server.tool()
    async def loop_thread() -> str:
        """The thread of the server's event loop."""
        return threading.current_thread().name

    with in_memory(server) as client:
        loop = client.call_tool("loop_thread", {})["content"][0]["text"]
        job_id = client.call_tool("records", {})["structuredContent"]["job_id"]

        def ended() -> dict[str, object] | None:
            polled = client.call_tool("get_job_result", {"job_id": job_id})["structuredContent"]
            return polled if polled["status"] != "running" else None

        polled = wait_until(ended, "the job ended", timeout=30)
    assert polled["status"] == "done"
    assert polled["result"][-1] == "last"  # read back as the value: its text is JSON
    assert looked, "nothing looked at the value"
    assert loop not in looked, looked
