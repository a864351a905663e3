"""A ``tools/call`` with a large argument is parsed, checked and converted on a worker thread.

Found in a user trial: a 14.5 MB argument (a long list of numbers) was parsed, checked against the
tool's schema and converted on the event loop, for seconds, while every other request (``/healthz``,
``ping``, other clients' calls) waited. Ordering, not timing: the tool's own argument check (which
runs where the schema check runs) holds until ``/healthz`` has answered.
"""

from __future__ import annotations

import json
import threading
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from support import post_rpc, serve, stdio_lines, tool_call_message, wait_until

from nanohubmcp import MCPServer
from nanohubmcp.errors import InvalidArguments
from nanohubmcp.server.wire.request import LARGE_MESSAGE_BYTES

MANY = 300_000  # about 1.5 MB of JSON: a large message


def build(check: Any, *, cache: bool = False, state_dir: str | None = None) -> MCPServer:
    server = MCPServer("large", provenance=cache, state_dir=state_dir)

    def total(xs: list[float]) -> float:
        """The sum of xs."""
        return sum(xs)

    server.add_tool(total, check_arguments=check, cache=cache)
    return server


def post(base: str, message: dict[str, Any]) -> dict[str, Any]:
    body = json.dumps(message).encode()
    assert len(body) >= LARGE_MESSAGE_BYTES
    sent = urllib.request.Request(base + "mcp", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(sent, timeout=120) as response:
        answer: dict[str, Any] = json.loads(response.read())
    return answer


@pytest.mark.parametrize("cache", [False, True])  # a cached tool's key is made from its checked arguments
def test_healthz_answers_while_a_large_calls_arguments_are_checked(cache: bool, tmp_path: Path) -> None:
    checking, healthz_answered = threading.Event(), threading.Event()
    seen: dict[str, Any] = {}

    def check(arguments: dict[str, Any]) -> None:
        checking.set()
        seen["healthz answered first"] = healthz_answered.wait(30)

    with serve(build(check, cache=cache, state_dir=str(tmp_path))) as base:
        replies: dict[str, Any] = {}
        call = threading.Thread(target=lambda: replies.update(
            big=post(base, tool_call_message("total", {"xs": [0.5] * MANY}))))
        call.start()
        try:
            assert checking.wait(120), "the large call's arguments were never checked"
            with urllib.request.urlopen(base + "healthz", timeout=20) as health:  # on the loop: while checking
                assert health.status == 200
            healthz_answered.set()
        finally:
            healthz_answered.set()
            call.join(120)
        assert seen["healthz answered first"]
        assert replies["big"]["result"]["content"][0]["text"] == str(0.5 * MANY)


@pytest.mark.parametrize("value", [["x"] * MANY, [0.5] * (MANY - 1) + ["x"]])
def test_a_large_call_is_refused_as_a_small_one_would_be(value: list[Any]) -> None:
    server = build(lambda arguments: None)
    tool = server.core.registry.tools.by_name["total"]
    with pytest.raises(InvalidArguments) as expected:
        tool.validator.validate({"xs": value})
    with serve(server) as base:
        answer = post(base, tool_call_message("total", {"xs": value}))
        assert answer["error"]["code"] == -32602
        assert answer["error"]["message"] == str(expected.value)
        assert answer["error"]["data"] == {"errors": expected.value.errors}
        small = post_rpc(base, "tools/call", {"name": "total", "arguments": {"xs": [1, "x"]}})
        assert small["error"]["code"] == -32602


STDIO_APP = """
import pathlib, sys, time
from nanohubmcp import MCPServer

folder = pathlib.Path(sys.argv[1])
server = MCPServer("large", provenance=False)


def check(arguments):
    (folder / "checking").touch()
    deadline = time.monotonic() + 30
    while not (folder / "pinged").exists() and time.monotonic() < deadline:
        time.sleep(0.01)


def total(xs: list[float]) -> float:
    return sum(xs)


server.add_tool(total, check_arguments=check)
server.run(transport="stdio")
"""


def test_over_stdio_a_ping_is_answered_while_a_large_lines_arguments_are_checked(tmp_path: Path) -> None:
    app = tmp_path / "app.py"
    app.write_text(STDIO_APP)
    with stdio_lines(app, str(tmp_path)) as (send, lines):
        try:
            send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
            assert lines.get(timeout=60)["id"] == 0
            send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            send(tool_call_message("total", {"xs": [0.5] * MANY}, request_id=1))
            wait_until(lambda: (tmp_path / "checking").exists(), "the large line's arguments checked")
            send({"jsonrpc": "2.0", "id": 2, "method": "ping"})
            first = lines.get(timeout=20)  # on the loop while the check holds: the ping's answer comes first
            (tmp_path / "pinged").touch()
            assert first == {"jsonrpc": "2.0", "id": 2, "result": {}}
            assert lines.get(timeout=60)["result"]["content"][0]["text"] == str(0.5 * MANY)
        finally:
            (tmp_path / "pinged").touch()
