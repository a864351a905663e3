"""SIGTERM (or ``server.stop()``) with a call in flight: a call still running when its time to answer
runs out (1 s: the exit grace less 2 s, served with ``--exit-grace 3``; a background serve's ``stop()``: 2 s)
gets a final JSON-RPC error (-32000, "The server is stopping ... may be retried"; REST:
503 with ``Retry-After``) before its connection closes, over Streamable HTTP (JSON and SSE
answers), legacy SSE, REST and stdio; a call arriving while the server stops is refused with the
same error. Before, the connection was dropped without an answer (curl: "Empty reply from
server"), an error no client could act on."""

from __future__ import annotations

import asyncio
import http.client
import json
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError
from support import mcp_client, wait_until

from nanohubmcp import MCPServer

APP = """
import asyncio, sys, time
from nanohubmcp import MCPServer
server = MCPServer("stopping")

@server.tool()
async def stubborn(ctx) -> str:
    '''Never looks at ctx.is_cancelled().'''
    ctx.report_progress(1, 10, "started")
    print("stubborn: running", file=sys.stderr, flush=True)
    await asyncio.sleep(60)
    return "late"

@server.tool()
def blocking() -> str:
    '''A sync function that sleeps.'''
    print("blocking: running", file=sys.stderr, flush=True)
    time.sleep(60)
    return "late"
"""

STOPPING = -32000
INITIALIZE = {"jsonrpc": "2.0", "id": 9, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "stop-test", "version": "0"}}}
MODERN = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
          "MCP-Protocol-Version": "2026-07-28"}
MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": {}}
GRACE = ["--exit-grace", "3"]
"""The running calls' time to answer is the exit grace less 2 s (process_exit.drain_step): 1 s here, not 8 (the
answers of the calls cut off keep their second: process_exit.ANSWERS_SECONDS)."""


class Served:
    def __init__(self, process: subprocess.Popen[bytes], log: Path, port: int | None) -> None:
        self.process, self.log, self.port = process, log, port

    @property
    def stderr(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_running(self, tool: str) -> None:
        wait_until(lambda: f"{tool}: running" in self.stderr, f"{tool} to run")

    def term(self) -> None:
        self.process.send_signal(signal.SIGTERM)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    """``nanohubmcp run app.py --port 0`` in a process of its own."""
    app = tmp_path / "app.py"
    app.write_text(APP)
    log = tmp_path / "stderr.log"
    with log.open("wb") as sink:
        process = subprocess.Popen([sys.executable, "-u", "-m", "nanohubmcp", "run", str(app), "--port", "0", *GRACE],
                                   stdout=subprocess.PIPE, stderr=sink, stdin=subprocess.DEVNULL, cwd=tmp_path)
    assert process.stdout is not None
    port = None
    try:
        for line in process.stdout:  # the banner names where it listens
            if b"127.0.0.1:" in line:
                port = int(line.decode().split("127.0.0.1:", 1)[1].split("/", 1)[0].split()[0])
                break
        assert port, f"the server did not start:\n{log.read_text()}"
        threading.Thread(target=process.stdout.read, daemon=True).start()
        yield Served(process, log, port)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(30)


def assert_stopped_quietly(served: Served) -> None:
    assert served.process.wait(30) == 0
    assert "Traceback" not in served.stderr, served.stderr
    assert "503 POST" not in served.stderr, served.stderr  # a stop is no fault: no WARNING line


def assert_stopping_error(error: dict[str, Any], request_id: int) -> None:
    assert error["id"] == request_id
    assert error["error"]["code"] == STOPPING
    assert "server is stopping" in error["error"]["message"]
    assert "retried" in error["error"]["message"]


def post(port: int, path: str, body: Any, headers: dict[str, str] | None = None) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("POST", path, json.dumps(body), {"Content-Type": "application/json", **(headers or {})})
    return connection.getresponse()


def call(name: str, request_id: int = 1, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": name, "arguments": {}, **params}}


def in_thread(fn: Any) -> tuple[threading.Thread, list[Any]]:
    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(fn()), daemon=True)
    thread.start()
    return thread, out


@pytest.mark.parametrize("transport", ["http", "sse"])
def test_the_official_client_gets_the_stopping_error(served: Served, transport: str) -> None:
    async def main() -> MCPError:
        path = "mcp" if transport == "http" else "sse"
        async with mcp_client(f"http://127.0.0.1:{served.port}/{path}", transport=transport) as client:
            calling = asyncio.ensure_future(client.call_tool("stubborn", {}))
            await asyncio.to_thread(served.wait_running, "stubborn")
            served.term()
            with pytest.raises(MCPError) as raised:
                await asyncio.wait_for(calling, 30)
            return raised.value

    try:
        error = asyncio.run(main())
    except BaseException as exc:  # the session's own teardown against a server now gone
        error = next((e for e in getattr(exc, "exceptions", [exc]) if isinstance(e, MCPError)), None)
        if error is None:
            raise
    assert error.error.code == STOPPING, error.error
    assert "server is stopping" in error.error.message
    assert_stopped_quietly(served)


@pytest.mark.parametrize("tool", ["stubborn", "blocking"])
def test_a_json_answer_is_a_503_with_the_error(served: Served, tool: str) -> None:
    thread, out = in_thread(lambda: post(served.port, "/mcp", call(tool, 5)))
    served.wait_running(tool)
    served.term()
    thread.join(30)
    response = out[0]
    assert response.status == 503
    assert response.getheader("Retry-After") == "2"
    assert_stopping_error(json.loads(response.read()), 5)
    assert_stopped_quietly(served)


def test_an_sse_answer_ends_with_the_error_event(served: Served) -> None:
    thread, out = in_thread(lambda: post(served.port, "/mcp", call("stubborn", 6, _meta={"progressToken": "p"}),
                                         {"Accept": "application/json, text/event-stream"}))
    served.wait_running("stubborn")
    served.term()
    thread.join(30)
    response = out[0]
    assert response.status == 200
    assert response.getheader("Content-Type", "").startswith("text/event-stream")
    events = [json.loads(line[5:]) for line in response.read().decode().splitlines() if line.startswith("data:")]
    assert events[0]["method"] == "notifications/progress"
    assert_stopping_error(events[-1], 6)
    assert_stopped_quietly(served)


def test_rest_answers_503_with_retry_after(served: Served) -> None:
    thread, out = in_thread(lambda: post(served.port, "/tools/stubborn", {}))
    served.wait_running("stubborn")
    served.term()
    thread.join(30)
    response = out[0]
    assert response.status == 503
    assert response.getheader("Retry-After") == "2"
    body = json.loads(response.read())
    assert "server is stopping" in body["error"]
    assert_stopped_quietly(served)


def test_stdio_answers_the_running_call_with_the_error(tmp_path: Path) -> None:
    app = tmp_path / "app.py"
    app.write_text(APP)
    log = tmp_path / "stderr.log"
    with log.open("wb") as sink:
        process = subprocess.Popen([sys.executable, "-u", "-m", "nanohubmcp", "run", str(app), "--transport", "stdio",
                                    *GRACE],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=sink, cwd=tmp_path)
    assert process.stdin is not None
    assert process.stdout is not None
    try:
        process.stdin.write(json.dumps(call("stubborn", 9)).encode() + b"\n")
        process.stdin.flush()
        wait_until(lambda: "stubborn: running" in log.read_text(), "the tool to run")
        process.send_signal(signal.SIGTERM)
        lines = [json.loads(line) for line in process.stdout]
        assert process.wait(30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(30)
    assert_stopping_error(lines[-1], 9)
    assert "Traceback" not in log.read_text()


def test_server_stop_cancels_first_then_answers_and_refuses_new_calls() -> None:
    server = MCPServer("stopping-in-process")
    seen: list[bool] = []
    running = threading.Event()

    @server.tool()
    async def polite(ctx: Any) -> str:
        """Returns once told to cancel."""
        running.set()
        while not ctx.is_cancelled():
            await asyncio.sleep(0.01)
        return "stopped early"

    @server.tool()
    async def stubborn(ctx: Any) -> str:
        """Ignores ctx.is_cancelled() (but records it)."""
        running.set()
        try:
            await asyncio.sleep(60)
        finally:
            seen.append(ctx.is_cancelled())
        return "late"

    server.start(host="127.0.0.1", port=0)
    port = server.port
    idle = http.client.HTTPConnection("127.0.0.1", port, timeout=30)  # kept alive across the stop
    idle.request("POST", "/mcp", json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
                 {"Content-Type": "application/json"})
    assert idle.getresponse().read()
    idle.request("POST", "/mcp", json.dumps(INITIALIZE), {"Content-Type": "application/json"})
    opened = idle.getresponse()
    assert opened.status == 200, opened.read()
    version = json.loads(opened.read())["result"]["protocolVersion"]
    in_session = {"Content-Type": "application/json", "Mcp-Session-Id": opened.headers["Mcp-Session-Id"],
                  "MCP-Protocol-Version": version}
    polite_call, polite_out = in_thread(lambda: post(port, "/mcp", call("polite", 2)))
    wait_until(running.is_set, "polite to run")
    running.clear()
    stubborn_call, stubborn_out = in_thread(lambda: post(port, "/mcp", call("stubborn", 3)))
    wait_until(running.is_set, "stubborn to run")
    stopper = threading.Thread(target=server.stop)
    stopper.start()
    polite_call.join(30)
    assert json.loads(polite_out[0].read())["result"]["content"][0]["text"] == "stopped early"
    # While the stop waits for stubborn: a new request on a kept-alive connection is refused.
    idle.request("POST", "/mcp", json.dumps(call("polite", 4)), {"Content-Type": "application/json"})
    refused = idle.getresponse()
    assert refused.status == 503
    assert_stopping_error(json.loads(refused.read()), 4)
    # trial52 N1: on a session that exists, a listing or a ping is still answered (from memory); work is not.
    for method in ("tools/list", "ping"):
        idle.request("POST", "/mcp", json.dumps({"jsonrpc": "2.0", "id": 10, "method": method}), in_session)
        listed = idle.getresponse()
        assert listed.status == 200, (method, listed.read())
        assert "result" in json.loads(listed.read())
    idle.request("POST", "/mcp", json.dumps(call("polite", 11)), in_session)
    refused = idle.getresponse()
    assert refused.status == 503
    assert_stopping_error(json.loads(refused.read()), 11)
    idle.request("POST", "/mcp", json.dumps({**INITIALIZE, "id": 12}), {"Content-Type": "application/json"})
    refused = idle.getresponse()
    assert refused.status == 503
    assert_stopping_error(json.loads(refused.read()), 12)
    # stdiostop: the stateless 2026-07-28 era has no sessions; its listings are answered too, its work is not.
    for method in ("tools/list", "resources/list", "resources/templates/list", "prompts/list"):
        idle.request("POST", "/mcp", json.dumps({"jsonrpc": "2.0", "id": 13, "method": method,
                                                 "params": {"_meta": MODERN_META}}), {**MODERN, "Mcp-Method": method})
        listed = idle.getresponse()
        assert listed.status == 200, (method, listed.read())
        assert json.loads(listed.read())["result"]["resultType"] == "complete", method
    for request_id, method, params in ((14, "tools/call", {"name": "polite", "arguments": {}}),
                                       (15, "server/discover", {})):
        name = {"Mcp-Name": "polite"} if method == "tools/call" else {}
        idle.request("POST", "/mcp", json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method,
                                                 "params": {**params, "_meta": MODERN_META}}),
                     {**MODERN, "Mcp-Method": method, **name})
        refused = idle.getresponse()
        assert refused.status == 503, (method, refused.read())
        assert_stopping_error(json.loads(refused.read()), request_id)
    stubborn_call.join(30)
    assert stubborn_out[0].status == 503
    assert_stopping_error(json.loads(stubborn_out[0].read()), 3)
    stopper.join(30)
    assert seen == [True]  # told to cancel before it was cut off


@pytest.mark.parametrize("ending", ["raises", "returns an error result"])
def test_a_call_ending_in_an_error_once_the_stop_cancelled_it_gets_the_stopping_error(ending: str) -> None:
    # trial50 F12: a Rappture program or a Sim2L kernel the stop killed ended its call with the source's own
    # "was cancelled" error, answered isError: true; the client did not cancel, and the call did not complete.
    from nanohubmcp import ToolError, ToolResult

    server = MCPServer("stopping-errors")
    running = threading.Event()

    @server.tool()
    async def careful(ctx: Any) -> Any:
        """Ends in an error once told to cancel."""
        running.set()
        while not ctx.is_cancelled():
            await asyncio.sleep(0.01)
        if ending == "raises":
            raise ToolError("careful was cancelled")
        return ToolResult("careful was cancelled", is_error=True)

    server.start(host="127.0.0.1", port=0)
    calling, out = in_thread(lambda: post(server.port, "/mcp", call("careful", 7)))
    wait_until(running.is_set, "careful to run")
    stopper = threading.Thread(target=server.stop)
    stopper.start()
    calling.join(30)
    stopper.join(30)
    assert out[0].status == 503
    assert out[0].getheader("Retry-After") == "2"
    assert_stopping_error(json.loads(out[0].read()), 7)


def test_a_server_stopped_serves_again_in_memory_and_over_http() -> None:
    # The refusal lasts as long as the stop: a later in-memory client (each `in_memory` block closes the
    # server's core when it ends) and a later start serve again.
    from nanohubmcp.testing import in_memory

    server = MCPServer("served-again")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Adds."""
        return a + b

    for _ in range(2):
        with in_memory(server) as client:
            assert client.call_tool("add", {"a": 1, "b": 2})["content"][0]["text"] == "3"
    for _ in range(2):
        server.start(host="127.0.0.1", port=0)
        try:
            answer = json.loads(post(server.port, "/mcp", call("add", 1) | {
                "params": {"name": "add", "arguments": {"a": 2, "b": 2}}}).read())
            assert answer["result"]["content"][0]["text"] == "4"
        finally:
            server.stop()
