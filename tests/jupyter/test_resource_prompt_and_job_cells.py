"""``%%mcp_resource``, ``%%mcp_prompt``, ``--async`` job tools, and cells that change what they define."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest
from kernels import LiveKernel, run_async, server_url
from support import mcp_client

pytestmark = pytest.mark.slow

CELLS = [
    '''%%mcp_resource config://settings --mime-type application/json
def settings() -> dict:
    """Notebook settings."""
    return {"precision": 10}
''',
    '''%%mcp_resource weather://{city}/current --mime-type application/json --name weather
def weather(city: str) -> dict:
    """Current weather for a city."""
    return {"city": city, "temp": 21}
''',
    """%%mcp_prompt --description "Ask for a calculation."
def calculate(expression: str) -> str:
    return f"Please calculate: {expression}"
""",
    '''%%mcp_tool --async --name slow_square
import time

def _pause() -> None:
    time.sleep(0.2)

def square(x: int) -> int:
    """Square x, slowly."""
    _pause()
    print("squared", x)
    return x * x
''',
]


def test_resources_prompts_and_jobs_reach_the_official_client(kernel: LiveKernel) -> None:
    for cell in CELLS:
        kernel.run_ok(cell)
    url = server_url(kernel)

    async def scenario() -> dict[str, Any]:
        async with mcp_client(url) as client:
            seen: dict[str, Any] = {}
            seen["resources"] = [str(r.uri) for r in (await client.list_resources()).resources]
            seen["templates"] = [
                t.uri_template for t in (await client.list_resource_templates()).resource_templates
            ]
            seen["settings"] = (await client.read_resource("config://settings")).contents[0].text
            seen["paris"] = (await client.read_resource("weather://paris/current")).contents[0].text
            prompt = await client.get_prompt("calculate", {"expression": "2+2"})
            seen["prompt"] = prompt.messages[0].content.text
            started = await client.call_tool("slow_square", {"x": 7})
            job = json.loads(started.content[0].text)
            for _ in range(100):
                polled = await client.call_tool("get_job_result", {"job_id": job["job_id"]})
                state = json.loads(polled.content[0].text)
                if state["status"] != "running":
                    break
                await asyncio.sleep(0.05)
            seen["job"] = state
            return seen

    seen = run_async(scenario())
    assert seen["resources"] == ["config://settings"]
    assert seen["templates"] == ["weather://{city}/current", "nanohubmcp://results/{id}{?part}"]
    assert json.loads(seen["settings"]) == {"precision": 10}
    assert json.loads(seen["paris"]) == {"city": "paris", "temp": 21}
    assert seen["prompt"] == "Please calculate: 2+2"
    assert seen["job"]["status"] == "done"
    assert seen["job"]["result"] == 49


def test_a_cell_that_now_defines_another_function_retires_the_old_tool(kernel: LiveKernel) -> None:
    kernel.run_ok("%%mcp_tool\ndef add(a: int, b: int) -> int:\n    return a + b\n", cell_id="cell-1")
    kernel.run_ok("%%mcp_tool\ndef plus(a: int, b: int) -> int:\n    return a + b\n", cell_id="cell-1")
    kernel.run_ok("%%mcp_tool\ndef other() -> str:\n    return 'x'\n", cell_id="cell-2")
    url = server_url(kernel)

    async def names() -> list[str]:
        async with mcp_client(url) as client:
            return [tool.name for tool in (await client.list_tools()).tools]

    assert sorted(run_async(names())) == ["other", "plus"]
    kernel.run_ok("%mcp remove plus")
    assert run_async(names()) == ["other"]


def test_a_second_cell_defining_the_same_tool_name_warns_once(kernel: LiveKernel) -> None:
    cell = '%%mcp_tool\ndef twice(x: int) -> int:\n    """Twice."""\n    return 2 * x\n'
    first = kernel.run_ok(cell, cell_id="cell-a")
    again = kernel.run_ok(cell, cell_id="cell-a")
    other = kernel.run_ok(cell, cell_id="cell-b")
    assert "RegistrationWarning" not in first.stderr + again.stderr
    assert "tool 'twice' was defined by another cell; this cell's function replaces it" in other.stderr


def test_a_registration_warning_names_the_cell_not_ipython(kernel: LiveKernel) -> None:
    """A warning raised while a %%mcp_tool cell registers points at that cell (trial10 F9). Running the
    cell again with its signature edited, the documented workflow, is no warning of its own (trial15 F8:
    it said "replaces a different function of that name")."""
    body = '    """Add."""\n    return a + b\n'
    kernel.run_ok(f"%%mcp_tool\ndef add(a: float, b: float) -> float:\n{body}", cell_id="cell-c")
    edited = kernel.run_ok(f"%%mcp_tool\ndef add(a: float, b: float, c: float = 0) -> float:\n{body}",
                           cell_id="cell-c")
    assert "RegistrationWarning" not in edited.stderr, edited.stderr
    changed = kernel.run_ok("%%mcp_tool\n# adds\ndef add(a: float, b: float, c: float = 0) -> float:\n"
                            "    return a + b\n", cell_id="cell-c")
    warned = [line for line in changed.stderr.splitlines() if line.strip()]
    assert len(warned) == 1, changed.stderr  # no echo of a source line below it
    assert re.fullmatch(
        r"Cell In\[\d+\]:2: RegistrationWarning: tool 'add' has no description: the model sees only its name; "
        r"add a docstring or description='...'",
        warned[0],
    ), warned[0]
    other = kernel.run_ok('%%mcp_tool\ndef add(x: int) -> int:\n    """Add."""\n    return x\n', cell_id="cell-d")
    assert re.search(
        r"^Cell In\[\d+\]:1: RegistrationWarning: tool 'add' was defined by another cell", other.stderr, re.MULTILINE
    ), other.stderr
    assert "interactiveshell" not in changed.stderr + other.stderr


def test_max_inline_bytes_set_with_config_applies_to_the_next_call(kernel: LiveKernel) -> None:
    kernel.run_ok('%%mcp_tool\nimport numpy as np\ndef ramp(n: int) -> np.ndarray:\n    """0..n-1."""\n'
                  "    return np.arange(n)\n")
    url = server_url(kernel)

    async def call() -> tuple[Any, Any, Any]:
        async with mcp_client(url) as client:
            inline = await client.call_tool("ramp", {"n": 100})
            await asyncio.to_thread(kernel.run_ok, "%config NanohubMCP.max_inline_bytes = 50")
            linked = await client.call_tool("ramp", {"n": 100})
            [link] = [b for b in linked.content if b.type == "resource_link"]
            return inline, linked, await client.read_resource(link.uri)

    inline, linked, read = run_async(call())
    assert inline.structured_content == {"result": list(range(100))}
    assert linked.structured_content is None
    assert json.loads(read.contents[0].text) == list(range(100))
