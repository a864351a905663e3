"""Over stdio (``--transport stdio``, as a desktop client launches them), the official ``mcp``
client (2025-11-25 handshake) and fastmcp's client (stateless 2026-07-28) each list and call
every tool of every example, read every resource, list the templates, and get every prompt."""

from __future__ import annotations

from typing import Any

import pytest
from stdio_support import example_command, fastmcp_client, official_client

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

CALLS: dict[str, dict[str, dict[str, Any]]] = {
    "simple": {
        "add": {"a": 2, "b": 3},
        "power": {"base": 2, "exponent": 3},
        "subtract": {"a": 5, "b": 2},
        "multiply": {"a": 2, "b": 3},
        "divide": {"a": 6, "b": 3},
    },
    "data_analysis": {
        "descriptive_stats": {"data": "1,2,3,4"},
        "correlation": {"x_data": "1,2,3", "y_data": "2,4,6"},
        "linear_regression": {"x_data": "1,2,3", "y_data": "2,4,6"},
        "normalize": {"data": "1,2,3"},
    },
    "simulator": {
        "projectile_motion": {"v0": 50, "angle": 45},
        "harmonic_oscillator": {"mass": 1, "spring_constant": 4, "amplitude": 0.1, "time": 1},
        "wave_properties": {"frequency": 10, "wavelength": 2},
        "ideal_gas": {"pressure": 101325, "volume": 0.0224, "n_moles": 1},
        "relativistic_energy": {"rest_mass": 1, "velocity": 1000},
    },
}
PROMPTS = {
    "simple": {"calculate": {"expression": "2 + 2"}},
    "data_analysis": {"analyze_data": {"data": "1,2,3"}},
    "simulator": {"physics_problem": {"problem_description": "a ball falls 2 m"}},
}
EXPECTED = {"add": "5.0", "correlation": '"correlation":1.0', "projectile_motion": '"range":254.842'}
KEPT_PARTS = "nanohubmcp://results/{id}{?part}"
"""The server's own template, listed by every server: a kept result read in parts."""


@pytest.mark.parametrize("name", sorted(CALLS))
async def test_the_official_stdio_client_drives_the_example(name: str) -> None:
    async with official_client(example_command(name)) as session:
        tools = sorted(tool.name for tool in (await session.list_tools()).tools)
        assert tools == sorted(CALLS[name])
        for tool, arguments in CALLS[name].items():
            result = await session.call_tool(tool, arguments)
            assert not result.is_error, (tool, result.content)
            if tool in EXPECTED:
                assert EXPECTED[tool] in result.content[0].text
        resources = (await session.list_resources()).resources
        assert resources
        for resource in resources:
            assert (await session.read_resource(resource.uri)).contents
        assert [t.uri_template for t in (await session.list_resource_templates()).resource_templates] == [KEPT_PARTS]
        prompts = (await session.list_prompts()).prompts
        assert sorted(p.name for p in prompts) == sorted(PROMPTS[name])
        for prompt, arguments in PROMPTS[name].items():
            assert (await session.get_prompt(prompt, arguments)).messages


@pytest.mark.parametrize("name", sorted(CALLS))
async def test_fastmcp_stdio_client_drives_the_example_statelessly(name: str) -> None:
    async with fastmcp_client(example_command(name)) as client:
        tools = sorted(tool.name for tool in await client.list_tools())
        assert tools == sorted(CALLS[name])
        for tool, arguments in CALLS[name].items():
            result = await client.call_tool(tool, arguments, raise_on_error=False)
            assert not result.is_error, (tool, result.content)
            if tool in EXPECTED:
                assert EXPECTED[tool] in result.content[0].text
        resources = await client.list_resources()
        assert resources
        for resource in resources:
            assert await client.read_resource(str(resource.uri))
        assert [t.uri_template for t in await client.list_resource_templates()] == [KEPT_PARTS]
        for prompt, arguments in PROMPTS[name].items():
            assert (await client.get_prompt(prompt, arguments)).messages
