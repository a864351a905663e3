"""MCP Apps end to end: ``examples/apps`` served for real, its view rendered by the official host bridge.

The official ``mcp`` client lists the example's tool (``_meta.ui.resourceUri``), reads the
``ui://`` resource it names (``text/html;profile=mcp-app``) and calls the tool. A host page
built on ``@modelcontextprotocol/ext-apps``'s ``AppBridge`` loads that HTML into a sandboxed
iframe under a CSP that allows nothing from the network, completes the Apps handshake with the
view and delivers the tool's input and result; the view's SVG polyline then holds one point per
sample and its title and summary show the result's values. Screenshot: ``test-artifacts/``.

Issue 17, "Done when": the ext-apps host bridge renders the tool's result in Chromium.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from example_process import ExampleProcess, run_example
from ext_apps_host import hosted_view, screenshot
from support import mcp_client

pytestmark = pytest.mark.slow

ARGS = {"frequency": 0.5, "damping": 0.3, "points": 120}


@pytest.fixture(scope="module")
def example() -> Iterator[ExampleProcess]:
    with run_example("apps") as running:
        yield running


def wire(model: Any) -> dict[str, Any]:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def fetch(url: str) -> dict[str, Any]:
    """Tool listing, view resource (listing and read) and a tool result, from the official client."""

    async def go() -> dict[str, Any]:
        with anyio.fail_after(30):
            async with mcp_client(url) as client:
                tools = (await client.list_tools()).tools
                resources = (await client.list_resources()).resources
                tool = next(wire(t) for t in tools if t.name == "damped_oscillation")
                uri = tool["_meta"]["ui"]["resourceUri"]
                read = wire(await client.read_resource(uri))
                result = wire(await client.call_tool("damped_oscillation", ARGS))
                return {
                    "tool": tool,
                    "uri": uri,
                    "resources": [wire(r) for r in resources],
                    "read": read,
                    "result": result,
                }

    return anyio.run(go)


def test_the_tool_names_its_view_and_the_view_reads_as_an_mcp_app(example: ExampleProcess) -> None:
    got = fetch(f"{example.url}mcp")
    assert got["uri"] == "ui://plots/chart"
    listed = {r["uri"]: r for r in got["resources"]}
    assert listed["ui://plots/chart"]["mimeType"] == "text/html;profile=mcp-app"
    assert listed["ui://plots/chart"]["_meta"] == {"ui": {"prefersBorder": True}}
    (content,) = got["read"]["contents"]
    assert content["uri"] == "ui://plots/chart"
    assert content["mimeType"] == "text/html;profile=mcp-app"
    assert content["_meta"] == {"ui": {"prefersBorder": True}}
    assert "ui/initialize" in content["text"]
    assert "<polyline" in content["text"]
    assert "http://" not in content["text"]
    assert "https://" not in content["text"]
    assert got["result"]["structuredContent"]["x"][-1] == 10.0


def test_the_ext_apps_host_bridge_renders_the_tool_result_in_chromium(example: ExampleProcess) -> None:
    got = fetch(f"{example.url}mcp")
    html = got["read"]["contents"][0]["text"]
    data = got["result"]["structuredContent"]
    with hosted_view(html, ARGS, got["result"]) as (page, view):
        view.locator("#summary").filter(has_text="points").wait_for()
        points = view.locator("#plot polyline").get_attribute("points").split()
        assert len(points) == ARGS["points"] == len(data["y"])
        assert view.locator("#title").inner_text() == data["title"]
        summary = view.locator("#summary").inner_text()
        assert summary == f"120 points, y from {min(data['y']):.3f} to {max(data['y']):.3f}"
        # The first sample (t = 0, y = 1, the maximum) is drawn at the top left corner.
        assert points[0] == "10.0,10.0"
        log = page.evaluate("window.hostLog")
        assert ["initialized", {"name": "plots/chart", "version": "1.0.0"}] in log
        assert any(entry[0] == "size" and entry[1]["height"] > 200 for entry in log)
        screenshot(page, "mcp-apps-view-rendered-by-ext-apps-host.png")
