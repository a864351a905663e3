"""``resources/read`` of a URI the server cannot read names it once, cut at 300 characters as an unknown tool's name
is (trial 75, F12: a 5,000-character unknown URI came back twice whole, in the message and in ``data.uri``, a 10 kB
answer). A short URI is named in the message and carried whole in ``data.uri``, as the spec's example has it. A real
server, the JSON-RPC ``POST /`` route."""

from __future__ import annotations

from typing import Any

import pytest
from support import post_rpc, serve

from nanohubmcp import MCPServer

LONG = 5000


def build() -> MCPServer:
    server = MCPServer("unknown-uris")

    @server.resource("files://{+path}")
    def files(path: str) -> str:
        """A file that is never there."""
        raise FileNotFoundError(path)

    @server.resource("table://rows{?limit}")
    def rows(limit: int = 1) -> str:
        """Rows."""
        return "row" * limit

    return server


@pytest.mark.parametrize(("uri", "starts"), [
    ("x://" + "n" * LONG, "Resource not found: x://nnn"),
    ("files://" + "f" * LONG, "Resource not found: files://fff"),
    ("table://rows?" + "q" * LONG + "=1", "Resource not found: table://rows?qqq"),
    ("nanohubmcp://provenance/" + "p" * LONG, "Resource not found: nanohubmcp://provenance/ppp"),
])
def test_a_long_uri_is_named_once_cut(uri: str, starts: str) -> None:
    with serve(build()) as url:
        answer = post_rpc(url, "resources/read", {"uri": uri}, path="")
    error: dict[str, Any] = answer["error"]
    assert error["code"] == -32002, error
    assert error["message"].startswith(starts), error["message"][:100]
    assert uri[:299] + "…" in error["message"]
    assert uri[:300] not in error["message"]
    assert "uri" not in error.get("data", {}), str(error.get("data"))[:200]
    assert len(str(answer)) < 2000, len(str(answer))


def test_a_short_uri_is_named_whole_and_kept_in_data() -> None:
    with serve(build()) as url:
        answer = post_rpc(url, "resources/read", {"uri": "x://nothing"}, path="")
    assert answer["error"] == {"code": -32002, "message": "Resource not found: x://nothing",
                               "data": {"uri": "x://nothing"}}


def test_many_unknown_query_parameters_are_named_a_few_and_counted() -> None:
    """trial 76 F5: ``?p0=1&...&p999=1`` came back as a 6,290-character message naming all 1,000 and a
    ``data.unknown`` of 1,000 names, though the URI itself was cut at 300."""
    uri = "table://rows?" + "&".join(f"p{n}=1" for n in range(1000))
    with serve(build()) as url:
        answer = post_rpc(url, "resources/read", {"uri": uri}, path="")
    error: dict[str, Any] = answer["error"]
    assert error["code"] == -32002, error
    assert error["message"].endswith("takes the query parameter(s) limit, not p0, p1, p2, p3, p4 and 995 more)"), \
        error["message"][-200:]
    assert error["data"] == {"uri_template": "table://rows{?limit}", "unknown": ["p0", "p1", "p2", "p3", "p4"]}
    assert len(str(answer)) < 1000, len(str(answer))
