"""The members of a large JSON-RPC batch have their arguments checked on a worker thread.

A batch of 1 MiB or more was parsed on a worker thread, but each member's ``tools/call`` arguments
were then checked against the tool's schema, and converted, on the event loop: a 13 MB batch held
it for seconds while ``/healthz``, ``ping`` and every other client waited. Ordering, not timing:
the tool's own argument check (which runs where the schema check runs) holds until ``/healthz``
(or a ping on stdio) has been answered. The answers, errors included, are those of the members
sent one by one, in the batch's order.
"""

from __future__ import annotations

import json
import threading
import urllib.request
from pathlib import Path
from typing import Any

from support import rpc_message, serve, stdio_lines, tool_call_message, wait_until

from nanohubmcp import MCPServer
from nanohubmcp.errors import InvalidArguments
from nanohubmcp.server.wire.request import LARGE_MESSAGE_BYTES

MANY = 300_000  # about 1.5 MB of JSON: a large message
VERSION = "2025-03-26"  # a version with batches


def build(check: Any) -> MCPServer:
    server = MCPServer("large-batch", provenance=False)

    def total(xs: list[float]) -> float:
        """The sum of xs."""
        return sum(xs)

    server.add_tool(total, check_arguments=check)
    return server


def post(base: str, message: Any, session: str | None = None) -> tuple[Any, str | None]:
    headers = {"Content-Type": "application/json", "MCP-Protocol-Version": VERSION}
    if session is not None:
        headers["Mcp-Session-Id"] = session
    sent = urllib.request.Request(base + "mcp", json.dumps(message).encode(), headers)
    with urllib.request.urlopen(sent, timeout=120) as response:
        return json.loads(response.read()), response.headers.get("Mcp-Session-Id")


def initialize(base: str) -> str:
    answer, session = post(base, rpc_message("initialize", {
        "protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}, 0))
    assert answer["result"]["protocolVersion"] == VERSION
    assert session is not None
    return session


def test_healthz_answers_while_a_large_batchs_member_is_checked() -> None:
    checking, healthz_answered = threading.Event(), threading.Event()
    seen: dict[str, Any] = {}

    def check(arguments: dict[str, Any]) -> None:
        if len(arguments["xs"]) == MANY:  # the large member's check holds; the small one's does not
            checking.set()
            seen["healthz answered first"] = healthz_answered.wait(30)

    with serve(build(check)) as base:
        session = initialize(base)
        batch = [tool_call_message("total", {"xs": [0.5] * MANY}, 1), rpc_message("ping", None, 2),
                 tool_call_message("total", {"xs": [1, 2]}, 3)]
        assert len(json.dumps(batch)) >= LARGE_MESSAGE_BYTES
        replies: dict[str, Any] = {}
        call = threading.Thread(target=lambda: replies.update(batch=post(base, batch, session)[0]))
        call.start()
        try:
            assert checking.wait(120), "the large member's arguments were never checked"
            with urllib.request.urlopen(base + "healthz", timeout=20) as health:  # on the loop: while checking
                assert health.status == 200
            healthz_answered.set()
        finally:
            healthz_answered.set()
            call.join(120)
        assert seen["healthz answered first"]
        answers = replies["batch"]
        assert [a["id"] for a in answers] == [1, 2, 3]
        assert answers[0]["result"]["content"][0]["text"] == str(0.5 * MANY)
        assert answers[1]["result"] == {}
        assert answers[2]["result"]["content"][0]["text"] == "3.0"


def test_a_large_batchs_members_are_answered_and_refused_as_one_by_one() -> None:
    bad_last = [0.5] * (MANY - 1) + ["x"]
    server = build(lambda arguments: None)
    tool = server.core.registry.tools.by_name["total"]
    try:
        tool.validator.validate({"xs": bad_last})
    except InvalidArguments as exc:
        expected = exc
    with serve(server) as base:
        session = initialize(base)
        batch = [tool_call_message("total", {"xs": ["x"] * MANY}, 1),
                 tool_call_message("total", {"xs": bad_last}, "two"),
                 tool_call_message("total", {"xs": [0.25] * MANY}, 3),
                 tool_call_message("total", {"xs": "not a list"}, 4)]
        answers, _ = post(base, batch, session)
        one_by_one = [post(base, member, session)[0] for member in batch]
        assert json.dumps(answers) == json.dumps(one_by_one)  # the same answers, to the byte, in order
        assert [a["id"] for a in answers] == [1, "two", 3, 4]
        assert answers[1]["error"] == {"code": -32602, "message": str(expected), "data": {"errors": expected.errors}}
        assert answers[2]["result"]["content"][0]["text"] == str(0.25 * MANY)
        assert answers[3]["error"]["code"] == -32602


STDIO_APP = """
import pathlib, sys, time
from nanohubmcp import MCPServer

folder = pathlib.Path(sys.argv[1])
server = MCPServer("large-batch", provenance=False)


def check(arguments):
    if len(arguments["xs"]) > 2:
        (folder / "checking").touch()
        deadline = time.monotonic() + 30
        while not (folder / "pinged").exists() and time.monotonic() < deadline:
            time.sleep(0.01)


def total(xs: list[float]) -> float:
    "The sum of xs."
    return sum(xs)


server.add_tool(total, check_arguments=check)
server.run(transport="stdio")
"""


def test_over_stdio_a_ping_is_answered_while_a_large_batch_lines_member_is_checked(tmp_path: Path) -> None:
    app = tmp_path / "app.py"
    app.write_text(STDIO_APP)
    with stdio_lines(app, str(tmp_path)) as (send, lines):
        try:
            send(rpc_message("initialize", {"protocolVersion": VERSION, "capabilities": {},
                                            "clientInfo": {"name": "t", "version": "1"}}, 0))
            assert lines.get(timeout=60)["id"] == 0
            send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            send([tool_call_message("total", {"xs": [1, 2]}, 1), tool_call_message("total", {"xs": [0.5] * MANY}, 2)])
            wait_until(lambda: (tmp_path / "checking").exists(), "the large batch member's arguments checked")
            send(rpc_message("ping", None, 3))
            first = lines.get(timeout=20)  # on the loop while the check holds: the ping's answer comes first
            (tmp_path / "pinged").touch()
            assert first == {"jsonrpc": "2.0", "id": 3, "result": {}}
            answers = lines.get(timeout=60)
            assert [a["id"] for a in answers] == [1, 2]
            assert [a["result"]["content"][0]["text"] for a in answers] == ["3.0", str(0.5 * MANY)]
        finally:
            (tmp_path / "pinged").touch()
