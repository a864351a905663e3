"""Over real HTTP, a client whose answer to the server's request is not of the spec's shape: the
tool hears ``ClientRequestError`` naming what is wrong, and the session keeps serving.

The official ``mcp`` client checks its callbacks' results itself and sends a JSON-RPC error instead
of a malformed one, so these clients speak raw HTTP (``stream_wire``): Streamable HTTP and the legacy
HTTP+SSE transport, whose answers reach the server by different handlers and meet in one place.
Trial20 F5.

An answer whose JSON-RPC ``error`` member is not an error object (``"error": "text"``, ``5``,
``{"code": "x"}``, ``{}``) is named as such to the tool (never the server's own ``AttributeError``),
a tool that lets it through is logged in one line (no traceback), and the session keeps serving; a
well-formed error is still the client's refusal, with its message. Over stdio too. Trial22 F1, F12.

Source: MCP 2025-11-25, Client § Elicitation (``ElicitResult``), § Sampling, § Roots; JSON-RPC 2.0
§ 5 (a response has ``result`` or ``error``, not both), § 5.1 (the error object: ``code`` an integer,
``message`` a string, ``data`` optional).
"""

from __future__ import annotations

import json
import logging
import subprocess
import threading
from typing import Any

import pytest
from stream_wire import Wire
from support import ROOT, run_command, serve, tool_call_message, wait_until

from nanohubmcp import ClientRequestError, Context, MCPServer

pytestmark = pytest.mark.timeout(60)

NAME = {"type": "object", "properties": {"name": {"type": "string"}}}


def build() -> MCPServer:
    server = MCPServer("raw-answers")

    @server.tool()
    def ask_name(ctx: Context) -> str:
        """Ask for a name; say what came back."""
        try:
            return json.dumps(ctx.elicit("Name?", NAME, timeout=10), sort_keys=True)
        except ClientRequestError as exc:
            return f"refused: {exc}"

    @server.tool()
    async def ask_name_async(ctx: Context) -> str:
        """The same on the event loop, with no guard: the trial's tool."""
        answer = await ctx.elicit("Name?", NAME, timeout=10)
        return str(answer["action"])

    @server.tool()
    def roots(ctx: Context) -> str:
        """The client's roots."""
        return json.dumps(ctx.list_roots(timeout=10))

    @server.tool()
    def summarize(ctx: Context) -> str:
        """Ask the client's model, unguarded."""
        return str(ctx.sample("Summarize MCP", timeout=10)["model"])

    return server


FEATURES_APP = ROOT / "tests" / "stdio" / "features_app.py"
SHAPE = 'a JSON-RPC error is an object {"code": <integer>, "message": "...", "data"?: ...}'
ELICIT = "the client's answer to elicitation/create"

MALFORMED = [
    ("text", f'{ELICIT} has "error" "text": {SHAPE}'),
    (5, f'{ELICIT} has "error" 5: {SHAPE}'),
    (None, f'{ELICIT} has "error" null: {SHAPE}'),
    ({"code": "x"}, f'{ELICIT} has error.code "x": it must be an integer'),
    ({}, f'{ELICIT} has an "error" without "code": {SHAPE}'),
    ({"code": 1}, f'{ELICIT} has an "error" without "message": {SHAPE}'),
    ({"code": 1, "message": ["no"]}, f'{ELICIT} has error.message ["no"]: it must be a string'),
]

NO_ACTION = "the client's answer to elicitation/create has no \"action\" (accept, decline or cancel)"


def ask(wire: Wire, session: str, tool: str, result: Any) -> dict[str, Any]:
    """Call ``tool``, answer its request with ``result``; the call's result."""
    return answered(wire, session, tool, {"result": result})


def answered(wire: Wire, session: str, tool: str, reply: dict[str, Any]) -> dict[str, Any]:
    """Call ``tool``, answer its request with ``reply`` (the members besides jsonrpc and id)."""
    call_id, stream = wire.stream_call("tools/call", {"name": tool, "arguments": {}}, session)
    try:
        asked = stream.next_message()
        assert asked is not None
        assert wire.post({"jsonrpc": "2.0", "id": asked["id"], **reply}, session).status == 202
        _, final = stream.until(lambda m: m.get("id") == call_id)
        return dict(final["result"])
    finally:
        stream.close()


def text(result: dict[str, Any]) -> str:
    return str(result["content"][0]["text"])


def test_streamable_http_answers_without_an_action_are_refused_and_the_session_goes_on() -> None:
    with serve(build()) as url:
        wire = Wire(url)
        session = wire.initialize(capabilities={"elicitation": {}, "roots": {}})
        assert ask(wire, session, "ask_name", {"foo": 1})["content"][0]["text"] == f"refused: {NO_ACTION}"
        unguarded = ask(wire, session, "ask_name_async", {"foo": 1})
        assert (unguarded["isError"], unguarded["content"][0]["text"]) == (True, NO_ACTION)
        declined = ask(wire, session, "ask_name", {"action": "decline", "content": {"name": "x"}})
        assert json.loads(declined["content"][0]["text"]) == {"action": "decline", "content": {"name": "x"}}
        listed = ask(wire, session, "roots", {"roots": [{"uri": "https://example.org"}]})
        assert listed["content"][0]["text"] == ("the client's answer to roots/list has roots[0].uri "
                                                "\"https://example.org\": a root is a file:// URI")
        # The session still serves: a good answer gets through.
        good = ask(wire, session, "ask_name", {"action": "accept", "content": {"name": "Ada"}})
        assert json.loads(good["content"][0]["text"]) == {"action": "accept", "content": {"name": "Ada"}}


def test_legacy_sse_answers_and_errors_of_the_wrong_shape_are_refused_alike() -> None:
    with serve(build()) as url:
        wire = Wire(url)
        stream, endpoint = wire.legacy()
        try:
            init = {"protocolVersion": "2024-11-05", "capabilities": {"elicitation": {}},
                    "clientInfo": {"name": "t", "version": "0"}}
            assert wire.legacy_post(endpoint, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                               "params": init}).status == 202
            assert stream.next_message()["id"] == 1
            wire.legacy_post(endpoint, {"jsonrpc": "2.0", "method": "notifications/initialized"})
            replies = [({"result": ["accept"]}, "the client's answer to elicitation/create is a list, not an object "
                                                "{\"action\": \"accept\"|\"decline\"|\"cancel\", \"content\"?: {...}}"),
                       ({"result": {"foo": 1}}, NO_ACTION),
                       *(({"error": error}, problem) for error, problem in MALFORMED[:4])]
            for call_id, (reply, text) in enumerate(replies, start=2):
                call = {"jsonrpc": "2.0", "id": call_id, "method": "tools/call",
                        "params": {"name": "ask_name", "arguments": {}}}
                assert wire.legacy_post(endpoint, call).status == 202
                asked = stream.next_message()
                assert asked["method"] == "elicitation/create"
                assert wire.legacy_post(endpoint, {"jsonrpc": "2.0", "id": asked["id"], **reply}).status == 202
                final = stream.next_message()
                assert final["id"] == call_id
                assert final["result"]["content"][0]["text"] == f"refused: {text}"
        finally:
            stream.close()


def test_streamable_http_names_a_malformed_error_and_the_session_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    with serve(build()) as url:
        wire = Wire(url)
        session = wire.initialize(capabilities={"elicitation": {}, "sampling": {}, "roots": {}})
        for error, problem in MALFORMED:
            assert text(answered(wire, session, "ask_name", {"error": error})) == f"refused: {problem}"
        both = answered(wire, session, "ask_name", {"result": {"action": "decline"}, "error": {"code": 1}})
        assert text(both) == (f'refused: {ELICIT} has both "result" and "error": a JSON-RPC response '
                              "carries one of them")
        unguarded = answered(wire, session, "ask_name_async", {"error": "text"})
        assert (unguarded["isError"], text(unguarded)) == (True, MALFORMED[0][1])
        sampled = answered(wire, session, "summarize", {"error": {"code": "x", "message": "m"}})
        assert (sampled["isError"], text(sampled)) == (
            True, "the client's answer to sampling/createMessage has error.code \"x\": it must be an integer")
        listed = answered(wire, session, "roots", {"error": 5})
        assert text(listed) == f'the client\'s answer to roots/list has "error" 5: {SHAPE}'
        # A well-formed error is the client's refusal, and a good answer still gets through.
        refused = answered(wire, session, "ask_name", {"error": {"code": -1, "message": "user said no"}})
        assert text(refused) == "refused: the client refused elicitation/create: user said no"
        good = answered(wire, session, "ask_name", {"result": {"action": "accept", "content": {"name": "Ada"}}})
        assert json.loads(text(good)) == {"action": "accept", "content": {"name": "Ada"}}
    assert "AttributeError" not in caplog.text
    failed = [r for r in caplog.records if r.name == "nanohubmcp.tool" and "failed" in r.getMessage()]
    assert [(r.levelname, r.exc_info) for r in failed] == [("WARNING", None)] * 3  # one line each, no traceback
    assert MALFORMED[0][1] in failed[0].getMessage()


class Stdio:
    """``nanohubmcp run features_app.py --transport stdio``, spoken to line by line."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(run_command(FEATURES_APP), cwd=ROOT, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.messages: list[dict[str, Any]] = []
        self.stderr = b""
        threading.Thread(target=self._read, daemon=True).start()
        self._stderr_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._stderr_reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.messages.append(json.loads(line))

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        self.stderr = self.proc.stderr.read()

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def message(self, what: str, predicate: Any) -> dict[str, Any]:
        found = wait_until(lambda: next((m for m in self.messages if predicate(m)), None), what, 20)
        return dict(found)

    def close(self) -> str:
        """End input; what the server wrote to stderr."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(20)
        self._stderr_reader.join(10)
        return self.stderr.decode(errors="replace")


def test_stdio_names_a_malformed_error_in_one_log_line() -> None:
    server = Stdio()
    try:
        server.send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                     "params": {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
                                "clientInfo": {"name": "raw", "version": "0"}}})
        server.message("the initialize result", lambda m: m.get("id") == 0)
        server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        server.send(tool_call_message("greet", {}, 1))
        asked = server.message("the elicitation", lambda m: m.get("method") == "elicitation/create")
        server.send({"jsonrpc": "2.0", "id": asked["id"], "error": "text"})
        result = server.message("the greet result", lambda m: m.get("id") == 1)["result"]
        assert (result["isError"], result["content"][0]["text"]) == (True, MALFORMED[0][1])
        server.send(tool_call_message("add", {"a": 1, "b": 2}, 2))  # the server goes on
        assert server.message("the add result", lambda m: m.get("id") == 2)["result"]["content"][0]["text"] == "3.0"
    finally:
        stderr = server.close()
    assert "Traceback" not in stderr
    assert "AttributeError" not in stderr
    assert [line for line in stderr.splitlines() if "greet" in line and "failed" in line] != []
