"""MCP Apps from a script: ``@server.tool(view=...)`` and ``@server.app_view(...)``, read by the official client.

A tool's definition carries ``_meta.ui.resourceUri`` (and ``visibility`` when asked); the view is
listed and read as ``text/html;profile=mcp-app`` with its ``_meta.ui`` (CSP, border, permissions),
and the served document opens its ``<head>`` with the view side of the Apps protocol. Mistakes
fail at registration, naming the tool or view.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import Context, MCPServer, RegistrationError
from nanohubmcp.server.registry.mcp_apps import UI_MIME, client_shows_views, view_document


class Figure:
    """Stands for a plotting library's figure: it displays as HTML."""

    def _repr_html_(self) -> str:
        return "<div id='fig'>figure</div>"


def build() -> MCPServer:
    server = MCPServer("apps-unit")

    @server.app_view(
        "ui://plots/chart",
        csp={"resource_domains": ["https://cdn.example.org"]},
        prefers_border=False,
        permissions=["clipboardWrite"],
    )
    def chart() -> str:
        return "<html><head><title>t</title></head><body><svg></svg></body></html>"

    server.add_app_view("ui://figures/one", Figure(), description="a figure")

    @server.tool(view="ui://plots/chart", view_visibility=["model", "app"], meta={"owner": "me"})
    def data(n: int = 3) -> dict:
        """Some data."""
        return {"x": list(range(n))}

    return server


def wire(model: Any) -> dict[str, Any]:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


@pytest.mark.anyio
async def test_a_tool_links_its_view_and_the_view_reads_as_an_mcp_app() -> None:
    with serve(build()) as url, anyio.fail_after(20):
        async with mcp_client(url) as client:
            (tool,) = [wire(t) for t in (await client.list_tools()).tools]
            listed = {r["uri"]: r for r in map(wire, (await client.list_resources()).resources)}
            chart = wire(await client.read_resource("ui://plots/chart"))["contents"]
            figure = wire(await client.read_resource("ui://figures/one"))["contents"]
    assert tool["_meta"] == {"owner": "me", "ui": {"resourceUri": "ui://plots/chart", "visibility": ["model", "app"]}}
    ui = {
        "csp": {"resourceDomains": ["https://cdn.example.org"]},
        "permissions": {"clipboardWrite": {}},
        "prefersBorder": False,
    }
    assert listed["ui://plots/chart"]["mimeType"] == UI_MIME == "text/html;profile=mcp-app"
    assert listed["ui://plots/chart"]["_meta"] == {"ui": ui}
    assert listed["ui://figures/one"]["description"] == "a figure"
    (content,) = chart
    assert content["mimeType"] == UI_MIME
    assert content["_meta"] == {"ui": ui}
    assert content["text"].startswith("<html><head><script>")
    assert "<title>t</title>" in content["text"]
    assert '"ui/initialize"' in content["text"]
    (content,) = figure
    assert content["mimeType"] == UI_MIME
    assert content["text"].startswith("<!DOCTYPE html>")
    assert "<div id='fig'>figure</div>" in content["text"]


def test_a_fragment_or_a_document_gets_the_bridge_first_in_its_head() -> None:
    assert view_document("<p>hi</p>").count("<script>") == 1
    assert view_document("<p>hi</p>").index("<script>") < view_document("<p>hi</p>").index("<p>hi</p>")
    whole = view_document('<!doctype html><html lang="en"><body>x</body></html>')
    assert whole.startswith('<!doctype html><html lang="en"><head><script>')
    headed = view_document("<HTML><HEAD class='a'><script>mine()</script></HEAD></HTML>")
    assert headed.index("ui/initialize") < headed.index("mine()")


@pytest.mark.parametrize(
    ("register", "message"),
    [
        (lambda s: s.tool(view="plots/chart")(lambda: 1), "a view is a 'ui://...' resource URI"),
        (lambda s: s.tool(view="ui://x", view_visibility=["user"])(lambda: 1), "'model' and/or 'app'"),
        (lambda s: s.add_app_view("https://x", "<p>"), "a view is a 'ui://...' resource URI"),
        (lambda s: s.add_app_view("ui://x", "<p>", csp={"script_domains": ["a"]}), "unknown csp kind 'script_domains'"),
        (lambda s: s.add_app_view("ui://x", "<p>", csp={"connect_domains": [1]}), "list of origins"),
        (lambda s: s.add_app_view("ui://x", "<p>", permissions=["usb"]), "unknown permission(s) usb"),
        (lambda s: s.add_app_view("ui://x/{id}", lambda: "<p>"), "one fixed URI"),
        (lambda s: s.app_view(lambda: "<p>"), "@app_view needs a URI"),
    ],
)
def test_mistakes_fail_at_registration_saying_what_to_fix(register: Any, message: str) -> None:
    with pytest.raises(RegistrationError, match=None) as caught:
        register(MCPServer("bad"))
    assert message in str(caught.value)


def test_a_view_value_that_is_not_html_is_refused_at_once() -> None:
    with pytest.raises(TypeError, match="return an HTML string or an object with _repr_html_"):
        MCPServer("bad").add_app_view("ui://x", 42)


@pytest.mark.anyio
async def test_the_readme_example_serves_a_tool_with_its_view() -> None:
    readme = Path(__file__).resolve().parents[2] / "docs" / "how-to" / "views.md"  # once the README's section
    section = readme.read_text(encoding="utf-8")
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict[str, Any] = {}
    exec(compile(code, str(readme), "exec"), namespace)  # our own README
    with serve(namespace["server"]) as url, anyio.fail_after(20):
        async with mcp_client(url) as client:
            (tool,) = (await client.list_tools()).tools
            uri = wire(tool)["_meta"]["ui"]["resourceUri"]
            (content,) = wire(await client.read_resource(uri))["contents"]
            result = wire(await client.call_tool("squares", {"n": 4}))
    assert uri == "ui://tables/squares"
    assert content["mimeType"] == "text/html;profile=mcp-app"
    assert "mcpApp.onToolResult" in content["text"]
    assert result["structuredContent"] == {"squares": [0, 1, 4, 9]}


@pytest.mark.anyio
async def test_a_tool_knows_whether_the_client_shows_views() -> None:
    server = MCPServer("apps-capability")

    @server.tool(view="ui://x/y")
    def shows(ctx: Context) -> bool:
        """Whether this client shows views."""
        return ctx.client_shows_views

    server.add_app_view("ui://x/y", "<p>")
    apps_client = {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}
    with serve(server) as url, anyio.fail_after(20):
        async with mcp_client(url, extensions=apps_client) as client:
            with_apps = wire(await client.call_tool("shows", {}))
        async with mcp_client(url) as client:
            without = wire(await client.call_tool("shows", {}))
    assert with_apps["content"][0]["text"] == "true", with_apps
    assert without["content"][0]["text"] == "false", without


@pytest.mark.parametrize(
    "capabilities",
    [
        None,
        {},
        {"extensions": []},
        {"extensions": {"io.modelcontextprotocol/ui": {}}},
        {"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": "text/html;profile=mcp-app"}}},
        {"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html"]}}},
    ],
)
def test_capabilities_without_html_views_say_no(capabilities: Any) -> None:
    assert client_shows_views(capabilities) is False
