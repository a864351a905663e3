"""Issue 13 "Also fix": cases from public bug reports, each answered as the spec says.

- A task-augmented ``tools/call`` of a tool whose ``taskSupport`` is forbidden gets -32601, and
  ``tools/list`` (2025-11-25) names the tools that take tasks.
- ``get_job_result`` of an unknown job id is a tool error (``isError``), still carrying its
  ``not_found`` status.
- An elicitation answer whose content breaks the requested schema reaches the tool as a
  failure, never as accepted content.
- Error texts show JSON values (``null``, ``"x"``), not Python reprs (``None``, ``'x'``).

Source: MCP 2025-11-25, Utilities § Tasks (tool-level negotiation), Server § Tools (errors),
Client § Elicitation (the content must match the requested schema).
"""

from __future__ import annotations

from streams.stream_wire import Wire
from support import serve

from nanohubmcp import Context, MCPServer
from nanohubmcp.errors import ClientRequestError

AGE = {"type": "object", "properties": {"age": {"type": "integer", "minimum": 0}}, "required": ["age"]}


def build() -> MCPServer:
    server = MCPServer("bug-reports")

    @server.tool()
    def add(a: float, b: float) -> float:
        """Add."""
        return a + b

    @server.async_tool()
    def later(n: int) -> int:
        """A job."""
        return n

    @server.tool()
    def ask_age(ctx: Context) -> str:
        """Ask the user's age."""
        try:
            answer = ctx.elicit("How old are you?", AGE, timeout=10)
        except ClientRequestError as exc:
            return f"failed: {exc}"
        return f"age {answer['content']['age']}"

    return server


def test_a_task_for_a_tool_that_forbids_tasks_is_32601_and_tools_list_names_the_ones_that_take_them() -> None:
    with serve(build()) as url:
        wire = Wire(url)
        session = wire.initialize()
        answer = wire.request(
            "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}, "task": {"ttl": 60000}}, session
        )
        assert answer["error"]["code"] == -32601
        assert "'add' does not run as a task" in answer["error"]["message"]
        created = wire.request("tools/call", {"name": "later", "arguments": {"n": 1}, "task": {"ttl": 60000}}, session)
        assert created["result"]["task"]["status"] in ("working", "completed")
        tools = {t["name"]: t for t in wire.request("tools/list", {}, session)["result"]["tools"]}
        assert tools["later"]["execution"] == {"taskSupport": "optional"}
        assert "execution" not in tools["add"]
        old = wire.initialize(version="2025-06-18")
        assert all(
            "execution" not in t for t in wire.request("tools/list", {}, old, version="2025-06-18")["result"]["tools"]
        )


def test_an_unknown_job_id_is_a_tool_error() -> None:
    with serve(build()) as url:
        wire = Wire(url)
        session = wire.initialize()
        wire.request("tools/call", {"name": "later", "arguments": {"n": 1}}, session)  # the poll tool exists
        result = wire.request("tools/call", {"name": "get_job_result", "arguments": {"job_id": "made-up"}}, session)[
            "result"
        ]
        assert result["isError"] is True
        assert result["structuredContent"]["status"] == "not_found"


def test_an_elicitation_answer_that_breaks_the_schema_reaches_the_tool_as_a_failure() -> None:
    with serve(build()) as url:
        wire = Wire(url)
        session = wire.initialize(capabilities={"elicitation": {}})
        for content, expected in (
            (
                {"age": "old"},
                "failed: The client's answer does not match the requested "
                'schema: content.age: "old" is not of type "integer"',
            ),
            (
                {},
                "failed: The client's answer does not match the requested schema: "
                'content: "age" is a required property',
            ),
            ({"age": 7}, "age 7"),
        ):
            call_id, stream = wire.stream_call("tools/call", {"name": "ask_age", "arguments": {}}, session)
            asked = stream.next_message()
            assert asked is not None
            assert asked["method"] == "elicitation/create"
            assert wire.respond(asked["id"], {"action": "accept", "content": content}, session).status == 202
            _, final = stream.until(lambda m, call_id=call_id: m.get("id") == call_id)
            assert final["result"]["content"][0]["text"] == expected
            stream.close()


def test_error_texts_show_json_values() -> None:
    with serve(build()) as url:
        wire = Wire(url)
        session = wire.initialize()
        level = wire.request("logging/setLevel", {"level": None}, session)["error"]["message"]
        assert level.startswith("Invalid log level null;")
        result = wire.request("tools/call", {"name": "add", "arguments": {"a": None, "b": "x"}}, session)["result"]
        text = result["content"][0]["text"]
        assert 'arguments.a: null is not of type "number"' in text
        assert 'arguments.b: "x" is not of type "number"' in text
        assert "None" not in text
        assert "'" not in text.replace("tool 'add'", "")
        reply = wire.post({"jsonrpc": "2.0", "id": 1, "method": "ping"}, session, version="1999-01-01")
        assert reply.status == 400
        assert 'Unsupported MCP-Protocol-Version: "1999-01-01"' in reply.json["error"]["message"]
