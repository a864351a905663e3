"""An ``async def`` tool that ended inside its ``tool_timeout`` is answered with its value, however late its answer
is made (review r37 F13). Another client's call that holds the event loop just after the tool's last step (here:
woken by it, then ``time.sleep``) delays the answer past the limit; the function itself ended in time, so the
value it produced is the answer. It was answered ``did not finish within 1 s (tool_timeout); it ended after the
limit (the event loop was held by other work) and its result was dropped``: the time was read when the answer was
made, not when the function ended (a client that retries would repeat a side effect that happened)."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Any

from support import call_tool_http, serve, wait_until

from nanohubmcp import MCPServer

LIMIT = 1.0


def test_a_call_that_ended_in_time_is_answered_with_its_value_though_the_loop_was_held_after() -> None:
    server = MCPServer("in-time", tool_timeout=LIMIT)
    done = asyncio.Event()  # bound to the server's loop at its first use there
    waiting: list[bool] = []
    woken: list[float] = []
    ended: list[float] = []

    @server.tool()
    async def hog() -> str:
        """Another client's mistake: woken by quick's end, it blocks the loop (time.sleep) past quick's limit."""
        waiting.append(True)
        await done.wait()
        woken.append(time.monotonic())
        time.sleep(LIMIT * 0.8)
        return "hogged"

    @server.tool()
    async def quick() -> dict[str, Any]:
        """Ends well inside its limit, waking hog as its last step."""
        await asyncio.sleep(LIMIT / 2)
        ended.append(time.monotonic())
        done.set()
        return {"ended": "in time"}

    answers: dict[str, Any] = {}
    with serve(server) as url:
        hogging = threading.Thread(target=lambda: answers.__setitem__("hog", call_tool_http(url, "hog", timeout=30)))
        hogging.start()
        wait_until(lambda: waiting, "hog's call waiting for quick's end")
        t0 = time.monotonic()
        answers["quick"] = call_tool_http(url, "quick", timeout=30)
        answered = time.monotonic()
        hogging.join(30)
    assert ended, "quick never ended"
    assert woken, "hog was never woken"
    assert ended[0] - t0 < LIMIT, f"quick ended {ended[0] - t0:.2f} s after it was asked, inside its limit"
    assert answered - t0 > LIMIT, f"hog held the loop until after quick's limit ({answered - t0:.2f} s)"
    result = answers["quick"]
    assert not result.get("isError"), result
    assert json.loads(result["content"][0]["text"]) == {"ended": "in time"}, result
