"""Over stdio, both eras get what Streamable HTTP gives: progress before the result, an
elicitation answered by the client (a server→client request in the handshake era, a multi
round-trip in 2026-07-28), log messages, resource templates, prompts; and a tool that prints,
warns and logs leaves the protocol stream intact."""

from __future__ import annotations

from typing import Any

import mcp_types
import pytest
from stdio_support import FEATURES_APP, fastmcp_client, official_client, run_command

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.timeout(120),
    pytest.mark.filterwarnings("ignore:The logging capability is deprecated"),
]


async def mcp_elicit(context: Any, params: Any) -> mcp_types.ElicitResult:
    return mcp_types.ElicitResult(action="accept", content={"name": "Ada"})


async def fastmcp_elicit(message: str, response_type: Any, params: Any, context: Any) -> dict[str, Any]:
    return {"name": "Ada"}


async def test_the_official_client_gets_progress_an_elicitation_and_logs() -> None:
    logs: list[Any] = []

    async def on_log(params: Any) -> None:
        logs.append(params)

    async with official_client(
        run_command(FEATURES_APP), elicitation_callback=mcp_elicit, logging_callback=on_log
    ) as session:
        assert (await session.call_tool("era", {})).content[0].text == "2025-11-25"
        await session.set_logging_level("info")
        progress: list[tuple[float, float | None, str | None]] = []

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            progress.append((value, total, message))

        result = await session.call_tool("count", {"steps": 3}, progress_callback=on_progress)
        assert result.content[0].text == "counted 3"
        assert progress == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]
        assert any(entry.data == "counted" or "counted" in str(entry.data) for entry in logs), logs
        assert (await session.call_tool("greet", {})).content[0].text == "Hello, Ada!"
        assert (await session.call_tool("chatty", {"text": "hey"})).content[0].text == "HEY"
        assert (await session.call_tool("add", {"a": 1, "b": 2})).content[0].text == "3.0"  # still in step
        templates = (await session.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == ["greeting://{name}", "nanohubmcp://results/{id}{?part}"]
        assert (await session.read_resource("greeting://Ada")).contents[0].text == "Hi Ada"
        assert (await session.get_prompt("explain", {"topic": "entropy"})).messages


async def test_fastmcp_gets_progress_an_elicitation_and_the_2026_era() -> None:
    async with fastmcp_client(run_command(FEATURES_APP), elicitation_handler=fastmcp_elicit) as client:
        assert (await client.call_tool("era", {})).content[0].text == "2026-07-28"
        progress: list[tuple[float, float | None, str | None]] = []

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            progress.append((value, total, message))

        result = await client.call_tool("count", {"steps": 2}, progress_handler=on_progress)
        assert result.content[0].text == "counted 2"
        assert progress == [(1, 2, "step 1"), (2, 2, "step 2")]
        assert (await client.call_tool("greet", {})).content[0].text == "Hello, Ada!"
        assert (await client.call_tool("chatty", {"text": "hey"})).content[0].text == "HEY"
        assert (await client.call_tool("add", {"a": 1, "b": 2})).content[0].text == "3.0"
        templates = await client.list_resource_templates()
        assert [t.uri_template for t in templates] == ["greeting://{name}", "nanohubmcp://results/{id}{?part}"]
        assert (await client.read_resource("greeting://Ada"))[0].text == "Hi Ada"
        assert (await client.get_prompt("explain", {"topic": "entropy"})).messages
