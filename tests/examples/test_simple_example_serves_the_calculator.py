"""examples/simple: the calculator of the reference README, driven by the official ``mcp`` client
over Streamable HTTP (initialize, tools, resources, templates, prompts) and by its REST curls."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from client_logs import ask_for_logs
from example_process import ExampleProcess, run_example
from json_posts import post_json
from support import mcp_client

pytestmark = pytest.mark.slow

TOOLS = {"add", "subtract", "multiply", "divide", "power"}


@pytest.fixture(scope="module")
def example() -> Iterator[ExampleProcess]:
    with run_example("simple") as running:
        yield running


def test_the_banner_lists_counts_and_endpoints(example: ExampleProcess) -> None:
    out = example.output
    assert f"MCP Server 'simple-calculator' v1.0.0 listening on 127.0.0.1:{example.port}" in out
    assert "Tools: 5" in out
    assert "Resources: 1" in out
    assert "Prompts: 1" in out
    for path in ("mcp", "sse", "openapi.json", ".well-known/mcp.json", "tools/<name>"):
        assert f"{example.url}{path}" in out


@pytest.mark.anyio
async def test_initialize_names_the_server_and_its_capabilities(example: ExampleProcess) -> None:
    with anyio.fail_after(20):
        async with mcp_client(example.url + "mcp") as client:
            assert client.protocol_version == "2025-11-25"
            assert client.server_info.name == "simple-calculator"
            assert client.server_info.version == "1.0.0"
            caps = client.server_capabilities
            assert caps.tools is not None
            assert caps.resources is not None
            assert caps.prompts is not None


@pytest.mark.anyio
async def test_tools_are_listed_with_number_parameters_and_descriptions(example: ExampleProcess) -> None:
    with anyio.fail_after(20):
        async with mcp_client(example.url + "mcp") as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == TOOLS
    assert tools["add"].description == "Add two numbers together."
    assert tools["divide"].description == "Divide a by b."
    for name in TOOLS - {"power"}:
        schema = tools[name].input_schema
        assert schema["properties"] == {"a": {"type": "number"}, "b": {"type": "number"}}, name
        assert sorted(schema["required"]) == ["a", "b"]
    # The Context parameter is injected, never part of the schema.
    power = tools["power"].input_schema
    assert set(power["properties"]) == {"base", "exponent"}
    assert sorted(power["required"]) == ["base", "exponent"]


CALLS = [
    ("add", {"a": 2, "b": 3}, "5.0"),
    ("add", {"a": -1.5, "b": 0.25}, "-1.25"),
    ("subtract", {"a": 10, "b": 4}, "6.0"),
    ("multiply", {"a": 6, "b": 7}, "42.0"),
    ("divide", {"a": 1, "b": 4}, "0.25"),
    ("power", {"base": 2, "exponent": 10}, "1024.0"),
    ("power", {"base": 9, "exponent": 0.5}, "3.0"),
]


@pytest.mark.anyio
async def test_every_tool_gives_the_right_answer(example: ExampleProcess) -> None:
    with anyio.fail_after(30):
        async with mcp_client(example.url + "mcp") as client:
            for name, arguments, expected in CALLS:
                result = await client.call_tool(name, arguments)
                assert not result.is_error, (name, result)
                assert [c.type for c in result.content] == ["text"]
                assert result.content[0].text == expected, (name, arguments)


@pytest.mark.anyio
async def test_dividing_by_zero_is_a_tool_error_with_the_message(example: ExampleProcess) -> None:
    with anyio.fail_after(20):
        async with mcp_client(example.url + "mcp") as client:
            result = await client.call_tool("divide", {"a": 1, "b": 0})
    assert result.is_error is True
    assert result.content[0].text == "Cannot divide by zero"


@pytest.mark.anyio
async def test_power_logs_through_its_context(example: ExampleProcess) -> None:
    logs: list[Any] = []

    async def on_log(params: Any) -> None:
        logs.append(params)

    with anyio.fail_after(20):
        async with mcp_client(example.url + "mcp", logging_callback=on_log) as client:
            await ask_for_logs(client)
            result = await client.call_tool("power", {"base": 3, "exponent": 2})
    assert result.content[0].text == "9.0"
    assert [p.level for p in logs] == ["info"]
    assert re.fullmatch(r"Computing 3(\.0)?\^2(\.0)?", logs[0].data), logs[0].data


@pytest.mark.anyio
async def test_the_settings_resource_reads_as_json(example: ExampleProcess) -> None:
    with anyio.fail_after(20):
        async with mcp_client(example.url + "mcp") as client:
            resources = (await client.list_resources()).resources
            assert [str(r.uri) for r in resources] == ["config://calculator/settings"]
            assert resources[0].description == "Get calculator settings."
            assert resources[0].mime_type == "application/json"  # annotated -> dict: listed (trial63 F7)
            read = await client.read_resource("config://calculator/settings")
            templates = (await client.list_resource_templates()).resource_templates
    assert [t.uri_template for t in templates] == ["nanohubmcp://results/{id}{?part}"]  # the server's own
    [content] = read.contents
    assert content.mime_type == "application/json"
    assert json.loads(content.text) == {
        "precision": 10,
        "max_value": 1e308,
        "supported_operations": ["add", "subtract", "multiply", "divide", "power"],
    }


@pytest.mark.anyio
async def test_the_calculate_prompt_asks_for_the_expression(example: ExampleProcess) -> None:
    with anyio.fail_after(20):
        async with mcp_client(example.url + "mcp") as client:
            prompts = (await client.list_prompts()).prompts
            got = await client.get_prompt("calculate", {"expression": "6*7"})
    assert [p.name for p in prompts] == ["calculate"]
    assert [(a.name, a.required) for a in prompts[0].arguments] == [("expression", True)]
    assert prompts[0].description == "Generate a calculation prompt."
    [message] = got.messages
    assert message.role == "user"
    assert message.content.type == "text"
    assert message.content.text == "Please calculate: 6*7"


def test_the_readme_rest_curls_answer_as_documented(example: ExampleProcess) -> None:
    assert post_json(example.url + "tools/add", {"a": 2, "b": 3}) == (200, {"result": "5.0"})
    assert post_json(example.url + "tools/power", {"base": 2, "exponent": 10}) == (200, {"result": "1024.0"})
    divided = post_json(example.url + "tools/divide", {"a": 1, "b": 0})
    assert divided == (500, {"error": "Cannot divide by zero"})
