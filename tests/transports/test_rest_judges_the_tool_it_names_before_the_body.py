"""REST ``POST /tools/<name>`` judges the tool it names first, then the body: a name that is no tool's, or a tool's
for its view only, is 404 whatever the body; a tool that exists has a body that is not a JSON object refused 415 or
400; an empty body is no arguments. The 404 repeats the name as MCP's answer does: cut to 300 characters, its
control characters, line breaks and bidirectional overrides written as escapes (trial80 F11).

Found by fresh-user trials: trial74 F9 (the precedence was mixed, and the 404 echoed a 300-character name whole; the
body was then judged first) and trial79 (``POST /tools/nope`` without ``Content-Type`` was told to send JSON rather
than that the tool does not exist).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from support import serve

from nanohubmcp import MCPServer


def build() -> MCPServer:
    server = MCPServer("rest-precedence")

    @server.app_view("ui://tables/squares")
    def squares_view() -> str:
        return "<html><body><table></table></body></html>"

    @server.tool(view="ui://tables/squares", view_visibility=["app"])
    def reset_everything() -> str:
        """Called by the view's reset button."""
        return "everything was reset"

    @server.tool()
    def add(a: int = 1, b: int = 2) -> int:
        """Add two integers."""
        return a + b

    return server


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with serve(build()) as url:
        yield url


def post(url: str, body: bytes, content_type: str | None = "application/json") -> tuple[int, Any]:
    headers = {"Content-Type": content_type} if content_type else {}
    request = urllib.request.Request(url, data=body, method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_a_body_that_is_no_json_object_is_refused_for_a_tool_that_exists(base: str) -> None:
    url = f"{base}tools/add"
    assert post(url, b'{"a": 1')[0] == 400
    assert post(url, b"[1, 2]")[0] == 400
    assert post(url, b"{}", "text/plain")[0] == 415
    assert post(url, b"{}", None)[0] == 415


@pytest.mark.parametrize("body", [b'{"a": 1', b"[1, 2]", b"{}"])
@pytest.mark.parametrize("content_type", ["application/json", "text/plain", None])
def test_a_name_that_is_no_tools_is_404_whatever_the_body(base: str, body: bytes, content_type: str | None) -> None:
    assert post(f"{base}tools/nosuch", body, content_type) == (404, {"error": "Unknown tool: nosuch"})
    status, answer = post(f"{base}tools/reset_everything", body, content_type)
    assert status == 404
    assert "is for its view only" in answer["error"]


def test_an_empty_body_is_no_arguments_then_the_tool_is_judged(base: str) -> None:
    assert post(f"{base}tools/add", b"") == (200, {"result": "3"})
    assert post(f"{base}tools/nosuch", b"") == (404, {"error": "Unknown tool: nosuch"})
    status, body = post(f"{base}tools/reset_everything", b"")
    assert status == 404
    assert "is for its view only" in body["error"]


def test_the_404_repeats_the_name_cut_as_mcps_answer_does(base: str) -> None:
    name = "n" * 400
    status, body = post(f"{base}tools/{name}", b"{}")
    assert status == 404
    assert body == {"error": "Unknown tool: " + "n" * 299 + "…"}


@pytest.mark.parametrize("content_type", ["application/json", "text/plain"])
def test_the_404_writes_the_names_control_characters_as_escapes(base: str, content_type: str) -> None:
    # trial80 F11: the name was repeated raw (ESC, a newline, U+202E), where MCP's answer escapes them
    status, body = post(f"{base}tools/%1b%5b31mX%0aY%E2%80%AE", b"{}", content_type)
    assert (status, body) == (404, {"error": "Unknown tool: \\u001b[31mX\\u000aY\\u202e"})


def test_a_compressed_body_is_judged_after_the_name_too(base: str) -> None:
    # trial80 F7: an unknown name with `Content-Encoding: gzip` was 415 (send it uncompressed), not its 404
    def sent(name: str) -> tuple[int, Any]:
        request = urllib.request.Request(f"{base}tools/{name}", data=b"xx", method="POST", headers={
            "Content-Type": "application/json", "Content-Encoding": "gzip"})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    assert sent("nosuch") == (404, {"error": "Unknown tool: nosuch"})
    status, answer = sent("reset_everything")
    assert status == 404
    assert "is for its view only" in answer["error"]
    status, answer = sent("add")
    assert status == 415
    assert "Content-Encoding: gzip" in answer["error"]
