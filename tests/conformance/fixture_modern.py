"""The server ``@modelcontextprotocol/conformance`` 0.2.0-alpha.12 judges: the 0.1.16 fixture plus
what the 2026-07-28 scenarios call.

It starts from ``fixture_server.build_server()`` (every tool, resource and prompt of the 0.1.16
scenarios, unchanged) and adds, with nanohubmcp's public API the way a user would write them:

- stateless wire: ``test_missing_capability`` (needs sampling), ``test_streaming_elicitation``,
  ``test_logging_tool``, ``test_trigger_tool_change`` / ``test_trigger_prompt_change``;
- multi round-trip (SEP-2322): ``test_input_required_result_*`` tools and the
  ``test_input_required_result_prompt`` prompt, with the input keys the scenarios name;
- ``x-mcp-header`` (SEP-2243): ``test_x_mcp_header`` mirrors ``region`` as ``Mcp-Param-Region``;
- tasks extension (SEP-2663): ``greet``, ``slow_compute``, ``failing_job``,
  ``protocol_error_job``, ``confirm_delete``, ``multi_input``, ``test_tool_with_task``;
- skills extension (SEP-2640): the ``skills/conformance-demo`` folder.

The strings the suite looks for are test data. Run:
``python tests/conformance/fixture_modern.py --port 3002``; ``scripts/conformance-modern``
starts it and runs the suite.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path
from typing import Any

from nanohubmcp import Context, MCPServer, ToolError
from nanohubmcp.errors import InternalError

try:  # run as a script (tests/conformance on sys.path) or imported from the tests package
    from fixture_server import build_server as build_base_server
except ImportError:  # pragma: no cover - depends on how the module is loaded
    from conformance.fixture_server import build_server as build_base_server

SKILL_DIR = Path(__file__).resolve().parent / "skills" / "conformance-demo"

NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def elicitation(message: str, schema: dict[str, Any]) -> dict[str, Any]:
    """An ``elicitation/create`` input request for ``ctx.ask``."""
    return {"method": "elicitation/create",
            "params": {"mode": "form", "message": message, "requestedSchema": schema}}


def sampling(text: str, max_tokens: int) -> dict[str, Any]:
    """A ``sampling/createMessage`` input request for ``ctx.ask``."""
    return {"method": "sampling/createMessage", "params": {
        "messages": [{"role": "user", "content": {"type": "text", "text": text}}], "maxTokens": max_tokens}}


def content_of(answer: dict[str, Any]) -> dict[str, Any]:
    """The ``content`` of an accepted elicitation (empty otherwise)."""
    return answer.get("content") or {} if answer.get("action") == "accept" else {}


def add_stateless_tools(server: MCPServer) -> None:
    """Tools of the ``server-stateless`` scenario."""

    @server.tool()
    def test_missing_capability(ctx: Context) -> str:
        """Ask the client's model something: needs the sampling capability (-32021 without it)."""
        reply = ctx.sample("Say hello.")
        return f"Sampled: {reply.get('content')}"

    @server.tool()
    def test_streaming_elicitation(ctx: Context) -> str:
        """Ask the user for a name (an input request, never a request on the response stream)."""
        answer = ctx.elicit("What is your name?", NAME_FORM)
        return f"Hello, {content_of(answer).get('name', 'stranger')}!"

    @server.tool()
    def test_logging_tool(ctx: Context) -> str:
        """Log three messages (sent only when the request asked for a log level)."""
        for text in ("Tool execution started", "Tool processing data", "Tool execution completed"):
            ctx.info(text)
        return "Logged three messages"

    counter = {"tools": 0, "prompts": 0}

    @server.tool()
    def test_trigger_tool_change() -> str:
        """Register another tool, so listening clients hear notifications/tools/list_changed."""
        counter["tools"] += 1

        def dynamic_tool() -> str:
            """A tool added at run time."""
            return "dynamic"

        server.add_tool(dynamic_tool, name=f"dynamic_tool_{counter['tools']}")
        return "Tool list changed"

    @server.tool()
    def test_trigger_prompt_change() -> str:
        """Register another prompt, so listening clients hear notifications/prompts/list_changed."""
        counter["prompts"] += 1

        def dynamic_prompt() -> str:
            """A prompt added at run time."""
            return "dynamic"

        server.add_prompt(dynamic_prompt, name=f"dynamic_prompt_{counter['prompts']}")
        return "Prompt list changed"


def add_input_required_tools(server: MCPServer) -> None:
    """Tools and the prompt of the ``input-required-result-*`` scenarios (SEP-2322)."""

    @server.tool()
    def test_input_required_result_elicitation(ctx: Context) -> str:
        """Ask the user's name (key user_name), then greet them."""
        answer = ctx.elicit("What is your name?", NAME_FORM, key="user_name")
        return f"Hello, {content_of(answer).get('name', 'stranger')}!"

    @server.tool()
    def test_input_required_result_sampling(ctx: Context) -> str:
        """Ask the client's model for the capital of France (key capital_question)."""
        reply = ctx.sample(sampling("What is the capital of France?", 100)["params"], key="capital_question")
        return f"The model said: {(reply.get('content') or {}).get('text', '')}"

    @server.tool()
    def test_input_required_result_list_roots(ctx: Context) -> str:
        """Ask the client for its roots (key client_roots) and name them."""
        roots = ctx.list_roots(key="client_roots").get("roots", [])
        return "Roots: " + ", ".join(root.get("uri", "?") for root in roots)

    @server.tool()
    def test_input_required_result_request_state(ctx: Context) -> str:
        """Ask for a confirmation (key confirm); reaching the end means the requestState checked out."""
        answer = ctx.elicit("Please confirm", {"type": "object", "properties": {"ok": {"type": "boolean"}},
                                               "required": ["ok"]}, key="confirm")
        return f"state-ok: confirmed={content_of(answer).get('ok')}"

    @server.tool()
    def test_input_required_result_multiple_inputs(ctx: Context) -> str:
        """Ask for a name, a model greeting and the roots in one round."""
        answers = ctx.ask({
            "user_name": elicitation("What is your name?", NAME_FORM),
            "greeting": sampling("Generate a greeting", 50),
            "client_roots": {"method": "roots/list", "params": {}},
        })
        name = content_of(answers["user_name"]).get("name")
        greeting = answers["greeting"].get("content", {}).get("text")
        return f"{name}: {greeting} ({len(answers['client_roots']['roots'])} roots)"

    @server.tool()
    def test_input_required_result_multi_round(ctx: Context) -> str:
        """Ask for a name, then (next round) a favourite colour."""
        name = content_of(ctx.elicit("Step 1: What is your name?", NAME_FORM, key="step1")).get("name")
        color = content_of(ctx.elicit("Step 2: What is your favorite color?", {
            "type": "object", "properties": {"color": {"type": "string"}}, "required": ["color"]},
            key="step2")).get("color")
        return f"{name} likes {color}"

    @server.tool()
    def test_input_required_result_tampered_state(ctx: Context) -> str:
        """Ask for a confirmation; a retry with a modified requestState is refused."""
        answer = ctx.elicit("Please confirm", {"type": "object", "properties": {"ok": {"type": "boolean"}}},
                            key="confirm")
        return f"confirmed={content_of(answer).get('ok')}"

    @server.tool()
    def test_input_required_result_capabilities(ctx: Context) -> str:
        """Ask only what the client can answer: elicitation and/or sampling."""
        requests: dict[str, Any] = {}
        if "elicitation" in ctx.client_capabilities:
            requests["user_name"] = elicitation("What is your name?", NAME_FORM)
        if "sampling" in ctx.client_capabilities:
            requests["greeting"] = sampling("Generate a greeting", 50)
        answers = ctx.ask(requests) if requests else {}
        return f"Answered: {', '.join(sorted(answers)) or 'nothing'}"

    @server.prompt()
    def test_input_required_result_prompt(ctx: Context) -> str:
        """A prompt that first asks the user which context to use (key user_context)."""
        answer = ctx.elicit("What context should the prompt use?", {
            "type": "object", "properties": {"context": {"type": "string"}}, "required": ["context"]},
            key="user_context")
        return f"Use this context: {content_of(answer).get('context', '')}"


def add_header_tool(server: MCPServer) -> None:
    """The ``x-mcp-header`` tool of ``http-custom-header-server-validation`` (SEP-2243)."""

    @server.tool(x_mcp_headers={"region": "Region"})
    def test_x_mcp_header(region: str) -> str:
        """Echo the region, which clients also send as the Mcp-Param-Region header.

        Args:
            region: where to run, e.g. us-west1.
        """
        return f"Region: {region}"


def add_task_tools(server: MCPServer) -> None:
    """Tools of the ``tasks-*`` scenarios (SEP-2663)."""

    @server.tool()
    def greet(name: str) -> str:
        """Greet someone right away (never a task).

        Args:
            name: who to greet.
        """
        return f"Hello, {name}!"

    @server.async_tool()
    def slow_compute(ctx: Context, seconds: float = 1.0, label: str = "") -> str:
        """Work for the given number of seconds, then report; stops early when cancelled.

        Args:
            seconds: how long to work.
            label: a name for the run.
        """
        deadline = time.monotonic() + max(0.0, seconds)
        while time.monotonic() < deadline:
            if ctx.is_cancelled():
                raise ToolError("cancelled")
            time.sleep(min(0.05, max(0.0, deadline - time.monotonic())))
        return f"Computed {label or 'result'} in {seconds:g} s"

    @server.async_tool(task_support="required")
    async def failing_job() -> str:
        """Fail with a tool error after about a second (task support required)."""
        await asyncio.sleep(1.0)
        raise ToolError("The job failed on purpose")

    @server.async_tool()
    async def protocol_error_job() -> str:
        """End with a JSON-RPC (protocol) error instead of a result."""
        await asyncio.sleep(0.2)
        raise InternalError("The job hit an internal error on purpose")

    @server.async_tool()
    def confirm_delete(ctx: Context, filename: str) -> str:
        """Ask the user to confirm deleting a file, then report (pretends to delete).

        Args:
            filename: the file to delete.
        """
        schema = {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}
        answer = ctx.elicit(f"Delete {filename}?", schema, timeout=300)
        confirmed = content_of(answer).get("confirm") is True
        return f"{'Deleted' if confirmed else 'Kept'} {filename}"

    @server.async_tool()
    def multi_input(ctx: Context) -> str:
        """Ask two questions at once, so two input requests are outstanding together."""
        answers = ctx.ask({
            "first": elicitation("First name?", NAME_FORM),
            "second": elicitation("Second name?", NAME_FORM),
        }, timeout=300)
        return " and ".join(str(content_of(a).get("name")) for a in answers.values())

    @server.tool(task_support="required")
    def test_tool_with_task(ctx: Context) -> str:
        """Ask the user's name first (multi round-trip), then go on as a task and greet them."""
        name = content_of(ctx.elicit("What is your name?", NAME_FORM, key="user_name")).get("name")
        ctx.start_task("Preparing the greeting")
        time.sleep(0.2)
        return f"Hello, {name}! (from a task)"


CONTACT_SCHEMA_2020_12 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {"address": {"$anchor": "addressDef", "type": "object",
                          "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}
"""The 0.1.16 schema grown by the 2020-12 keywords SEP-2106 allows (checked from 2026-07-28 on)."""


def add_json_schema_tool(server: MCPServer) -> None:
    """Replace ``json_schema_2020_12_tool`` with one whose schema also has $anchor, allOf, if/then/else."""

    @server.tool(input_schema=CONTACT_SCHEMA_2020_12)
    def json_schema_2020_12_tool(name: str | None = None, address: dict[str, Any] | None = None,
                                 contactMethod: str | None = None, phone: str | None = None,
                                 email: str | None = None) -> dict[str, Any]:
        """Echo a contact, described by a JSON Schema 2020-12 with $defs, $ref, allOf and if/then/else."""
        return {"name": name, "address": address, "contactMethod": contactMethod, "phone": phone,
                "email": email}


def build_server() -> MCPServer:
    """The 0.1.16 fixture plus everything the 0.2.0-alpha.12 scenarios call."""
    server = build_base_server()
    add_json_schema_tool(server)
    add_stateless_tools(server)
    add_input_required_tools(server)
    add_header_tool(server)
    add_task_tools(server)
    server.skill(SKILL_DIR)
    return server


def main(argv: list[str] | None = None) -> None:
    """Parse ``--host``/``--port`` and serve until SIGINT/SIGTERM."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=3002, help="TCP port (0 = any free port; default 3002)")
    args = parser.parse_args(argv)
    build_server().run(host=args.host, port=args.port)


if __name__ == "__main__":
    main()
