"""``view_visibility=["app"]`` asks MCP hosts to keep a tool from the model (SEP-1865); it is not access
control, and the REST routes, which have no host, leave the tool out.

A fresh-user trial (trial11 F15) found docs/how-to/views.md calling it "a tool only the view may call",
while any client called it over ``tools/call`` and REST, and OpenAPI listed it (OpenAPI readers are
often models). The server cannot tell a view's call from another client's (the host forwards it as a
plain ``tools/call``): MCP still lists and serves the tool, with the hint; REST answers 404 saying why,
and OpenAPI does not list it.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import anyio
import pytest
from json_posts import post_json
from support import mcp_client, serve

from nanohubmcp import MCPServer

DOCS = Path(__file__).resolve().parents[2] / "docs" / "how-to" / "views.md"


def build() -> MCPServer:
    server = MCPServer("apps-visibility")

    @server.app_view("ui://tables/squares")
    def squares_view() -> str:
        return "<html><body><table></table></body></html>"

    @server.tool(view="ui://tables/squares")
    def squares(n: int = 3) -> dict:
        """The squares of 0..n-1."""
        return {"squares": [i * i for i in range(n)]}

    @server.tool(view="ui://tables/squares", view_visibility=["app"])
    def reset_everything() -> str:
        """Called by the view's reset button."""
        return "everything was reset"

    @server.tool(view="ui://tables/squares", view_visibility=["model"])
    def model_only() -> str:
        """For the model, not the view."""
        return "model"

    return server


@pytest.mark.anyio
async def test_mcp_lists_and_serves_it_with_the_hint_and_rest_and_openapi_leave_it_out() -> None:
    with serve(build()) as url, anyio.fail_after(20):
        async with mcp_client(url + "mcp") as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            called = await client.call_tool("reset_everything", {})
        assert listed["reset_everything"].meta == {"ui": {"resourceUri": "ui://tables/squares", "visibility": ["app"]}}
        assert not called.is_error
        assert called.content[0].text == "everything was reset"  # any MCP client: the hint is the host's to apply

        status, body = post_json(url + "tools/reset_everything", {}, 10)
        assert status == 404
        assert body == {"error": "Tool 'reset_everything' is for its view only (view_visibility=['app']): not served "
                                 "over REST; an MCP host calls it for its view"}
        assert post_json(url + "tools/squares", {"n": 2}, 10) == (200, {"squares": [0, 1]})
        assert post_json(url + "tools/model_only", {}, 10) == (200, {"result": "model"})

        with urllib.request.urlopen(url + "openapi.json", timeout=10) as answer:
            paths = set(json.loads(answer.read())["paths"])
        assert "/tools/reset_everything" not in paths
        assert {"/tools/squares", "/tools/model_only"} <= paths


def test_the_page_says_it_is_a_hint_and_how_to_restrict_a_tool() -> None:
    page = " ".join(DOCS.read_text().split())
    assert "only the view may call" not in page
    assert "any MCP client can still call it" in page
    assert "`scopes=`" in page
