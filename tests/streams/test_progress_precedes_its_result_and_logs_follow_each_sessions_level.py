"""Related messages ride the call's own stream, before its result; log levels are per session.

- A tool reporting progress three times: over 100 calls (sync tools on worker threads and
  ``async def`` tools on the loop, both transports), every progress notification reaches the
  client's ``progress_callback`` before ``call_tool`` returns, and none arrives later. The raw
  SSE body shows the same order on the wire.
- ``logging/setLevel`` is remembered per session: session A at ``debug`` gets every level,
  session B at ``error`` gets only ``error``, from the same tool at the same time.

Source: MCP 2025-11-25, Basic § Utilities § Progress; Server § Utilities § Logging; Transports §
Streamable HTTP (related messages before the response). Issue 3, "Done when".
"""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
import pytest
from stream_wire import Wire
from support import mcp_client, serve

from nanohubmcp import Context, MCPServer

CALLS = 100


def build() -> MCPServer:
    server = MCPServer("progress-and-logs")

    @server.tool()
    def steps_in_thread(n: int, ctx: Context) -> str:
        """Report progress three times from a worker thread, then answer."""
        for i in range(1, 4):
            ctx.report_progress(i, 3, f"step {i}")
        return f"done {n}"

    @server.tool()
    async def steps_on_loop(n: int, ctx: Context) -> str:
        """Report progress three times on the event loop, then answer."""
        for i in range(1, 4):
            ctx.report_progress(i, 3, f"step {i}")
            if i == 2:
                await asyncio.sleep(0)
        return f"done {n}"

    @server.tool()
    def chatter(ctx: Context) -> str:
        """Log once at each of four levels."""
        ctx.debug("a debug line")
        ctx.info("an info line")
        ctx.warning("a warning line")
        ctx.error("an error line")
        return "logged"

    return server


@pytest.mark.anyio
@pytest.mark.parametrize(("transport", "endpoint"), [("http", "mcp"), ("sse", "sse")])
async def test_a_hundred_calls_never_see_progress_after_their_result(transport: str, endpoint: str) -> None:
    timeline: list[tuple[int, str]] = []
    with serve(build()) as url, anyio.fail_after(60):
        async with mcp_client(url + endpoint, transport=transport) as client:
            for n in range(CALLS):
                tool = "steps_in_thread" if n % 2 == 0 else "steps_on_loop"

                async def on_progress(progress: float, total: float | None, message: str | None,
                                      n: int = n) -> None:
                    timeline.append((n, f"progress {progress:g}/{total:g} {message}"))

                result = await client.call_tool(tool, {"n": n}, progress_callback=on_progress)
                timeline.append((n, "result " + result.content[0].text))
            await anyio.sleep(0.3)  # anything late would land now
    for n in range(CALLS):
        seen = [what for call, what in timeline if call == n]
        steps = [f"progress {i}/3 step {i}" for i in (1, 2, 3)]
        assert seen == [*steps, f"result done {n}"], (n, seen)


def test_on_the_wire_progress_events_come_before_the_response_event() -> None:
    with serve(build()) as url:
        wire = Wire(url)
        session = wire.initialize()
        for tool in ("steps_in_thread", "steps_on_loop"):
            for n in range(20):
                rid = wire.next_id()
                reply = wire.post({"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                                   "params": {"name": tool, "arguments": {"n": n},
                                              "_meta": {"progressToken": f"t{n}"}}},
                                  session)
                assert reply.headers.get("Content-Type") == "text/event-stream"
                kinds = [m.get("method") or ("response" if m.get("id") == rid else "?")
                         for m in reply.messages()]
                assert kinds == ["notifications/progress"] * 3 + ["response"], kinds
                tokens = {m["params"]["progressToken"] for m in reply.messages()[:3]}
                assert tokens == {f"t{n}"}


def test_without_a_progress_token_no_progress_is_sent_and_the_answer_is_plain_json() -> None:
    with serve(build()) as url:
        wire = Wire(url)
        session = wire.initialize()
        reply = wire.post({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                           "params": {"name": "steps_in_thread", "arguments": {"n": 1}}}, session)
        assert reply.headers.get("Content-Type", "").startswith("application/json")
        assert reply.json["result"]["content"][0]["text"] == "done 1"


@pytest.mark.anyio
@pytest.mark.filterwarnings("ignore:The logging capability is deprecated")
@pytest.mark.parametrize(("transport", "endpoint"), [("http", "mcp"), ("sse", "sse")])
async def test_each_session_gets_log_messages_at_its_own_level(transport: str, endpoint: str) -> None:
    got: dict[str, list[tuple[str, Any]]] = {"A": [], "B": []}

    def recorder(name: str) -> Any:
        async def on_log(params: Any) -> None:
            got[name].append((params.level, params.data))
        return on_log

    with serve(build()) as url, anyio.fail_after(30):
        async with mcp_client(url + endpoint, transport=transport, logging_callback=recorder("A")) as a, \
                mcp_client(url + endpoint, transport=transport, logging_callback=recorder("B")) as b:
            await a.set_logging_level("debug")
            await b.set_logging_level("error")
            async with anyio.create_task_group() as group:
                group.start_soon(a.call_tool, "chatter", {})
                group.start_soon(b.call_tool, "chatter", {})
            await a.call_tool("chatter", {})
            # Each session's lines come in order, "an error line" last: once A has all eight and B its one,
            # any line B should not get would have come before it.
            while len(got["A"]) < 8 or not got["B"]:
                await anyio.sleep(0.01)
    assert got["A"] == [("debug", "a debug line"), ("info", "an info line"), ("warning", "a warning line"),
                        ("error", "an error line")] * 2
    assert got["B"] == [("error", "an error line")]


def test_a_session_that_never_set_a_level_gets_no_log_messages() -> None:
    with serve(build()) as url:
        wire = Wire(url)
        session = wire.initialize()
        reply = wire.post({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                           "params": {"name": "chatter", "arguments": {}}}, session)
        assert [m.get("method") for m in reply.messages()] == [None]
