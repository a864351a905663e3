"""trial12: a ``resources/read`` URI is matched against the resource templates in time linear in its
length, so no client can stall the event loop (and every other client) with one request.

A template's variables were matched by a backtracking regex in which neighbouring variables could
trade characters: ``mol://{a}-{b}-{c}-{d}-{e}-{f}`` and a 200-character URI of ``x-x-x-...`` that
almost matched took 37 s (one power of the length per variable); adjacent variables (``{a}{b}``)
the same. Now two variables with nothing between them are refused at registration, a later variable
never holds the literal text before it when an earlier one could (so where each ends is decided in
one pass), and a URI over ``MAX_URI_LENGTH`` (8192 characters) is -32602 before any template sees it.

The hostile read goes to a server in a process of its own, so that on a server that stalls the test
ends (it gives up after 60 s) and the process is killed, not the test run.

Source: RFC 6570 §§ 2-3; MCP 2025-11-25, Server § Resources § Resource Templates and § Error Handling.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from support import ROOT, mcp_client

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationError
from nanohubmcp.testing import RpcError, in_memory

SERVER = """
import sys
from nanohubmcp import MCPServer

server = MCPServer("molecules")

@server.resource("mol://{formula}-{charge}-{spin}-{basis}-{method}-{grid}")
def molecule(formula: str, charge: int, spin: int, basis: str, method: str, grid: str) -> str:
    return f"{formula} q={charge} s={spin} {basis} {method} {grid}"

@server.resource("mol://{formula}/{basis}")
def by_basis(formula: str, basis: str) -> str:
    return f"{formula} in {basis}"

server.start(host="127.0.0.1", port=0)
print(server.url, flush=True)
sys.stdin.read()  # serve until the test closes stdin (or kills the process)
server.stop()
"""

RESOURCE_NOT_FOUND = -32002
INVALID_PARAMS = -32602


@pytest.fixture
def molecules(tmp_path: Path) -> Iterator[str]:
    """The URL of SERVER in a process of its own."""
    script = tmp_path / "molecules.py"
    script.write_text(SERVER)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    process = subprocess.Popen([sys.executable, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True, env=env)
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        assert url.startswith("http://"), url
        yield url + "mcp"
    finally:
        process.kill()
        process.wait(10)


@pytest.mark.anyio
async def test_a_uri_that_almost_matches_six_variables_is_answered_at_once(molecules: str) -> None:
    hostile = "mol://" + "x-" * 2000 + "/"  # 4006 characters: every '-' a place a variable could end
    at_the_limit = "mol://" + "x-" * 4093  # 8192 characters, the longest URI taken
    with anyio.fail_after(60):  # a stalled server never answers: TimeoutError, and the fixture kills it
        async with mcp_client(molecules) as client:
            for uri in (hostile, at_the_limit):
                with pytest.raises(MCPError) as refused:
                    await client.read_resource(uri)
                assert refused.value.code == RESOURCE_NOT_FOUND, refused.value.message
            # ... and it keeps serving, this client and others
            read = await client.read_resource("mol://C2H6-0-1-sto3g-b3lyp-fine")
            assert read.contents[0].text == "C2H6 q=0 s=1 sto3g b3lyp fine"
            async with mcp_client(molecules) as other:
                read = await other.read_resource("mol://H2O/cc-pvdz")
                assert read.contents[0].text == "H2O in cc-pvdz"


@pytest.mark.anyio
async def test_a_uri_over_8192_characters_is_32602_saying_the_limit(molecules: str) -> None:
    from nanohubmcp.server.handlers.resources import MAX_URI_LENGTH

    with anyio.fail_after(60):
        async with mcp_client(molecules) as client:
            with pytest.raises(MCPError) as refused:
                await client.read_resource("mol://" + "x" * MAX_URI_LENGTH)
            assert refused.value.code == INVALID_PARAMS
            assert f"params.uri is {MAX_URI_LENGTH + 6} characters long; at most 8192" in refused.value.message
            read = await client.read_resource("mol://H2O/" + "b" * (MAX_URI_LENGTH - 10))
            assert read.contents[0].text.startswith("H2O in bbb")


@pytest.mark.parametrize("method", ["resources/subscribe", "resources/unsubscribe"])
def test_subscribing_to_a_uri_over_the_limit_is_32602_too(method: str) -> None:
    from nanohubmcp.server.handlers.resources import MAX_URI_LENGTH

    server = MCPServer("subscribe")

    @server.resource("mol://{formula}/{basis}")
    def by_basis(formula: str, basis: str) -> str:
        return f"{formula} in {basis}"

    with in_memory(server) as client, pytest.raises(RpcError) as refused:
        client.request(method, {"uri": "mol://H2O/" + "b" * MAX_URI_LENGTH})
    assert refused.value.code == INVALID_PARAMS
    assert f"{method}: params.uri is {MAX_URI_LENGTH + 10} characters long" in refused.value.message


@pytest.mark.parametrize(
    ("template", "first", "second"),
    [
        ("mol://{formula}{charge}/{basis}", "{formula}", "{charge}"),
        ("x://{a}{+b}", "{a}", "{+b}"),
        ("x://{+a}{b}", "{+a}", "{b}"),
        ("x://{a,b}{c}", "{a,b}", "{c}"),
        ("x://{;a}{b}", "{;a}", "{b}"),
        ("x://{?q}{b}", "{?q}", "{b}"),
    ],
)
def test_variables_with_nothing_between_them_are_refused_at_registration(
        template: str, first: str, second: str) -> None:
    server = MCPServer("adjacent")

    def read(**values: str) -> str:
        return str(values)

    with pytest.raises(RegistrationError) as refused:
        server.resource(template)(read)
    message = str(refused.value)
    assert f"resource template '{template}': '{first}' and '{second}' have nothing between them" in message
    assert "put a literal separator between the variables" in message
    assert isinstance(refused.value, ValueError)


@pytest.mark.parametrize("template", ["x://{+a}{/b*}", "x://{/a*}{/b*}", "x://{a*}{/b*}"])
def test_segments_after_a_variable_that_may_hold_a_slash_are_refused(template: str) -> None:
    server = MCPServer("segments")
    with pytest.raises(RegistrationError, match=r"which segments belong to which cannot be told"):

        @server.resource(template)
        def read(**values: str) -> str:
            return str(values)


def operators_server() -> MCPServer:
    server = MCPServer("separated")
    # An operator's own character separates, as literal text does.
    for template in ("grid://{x}/{y}{?fine}", "file://{name}{.ext}", "path://{+dir}{?q}", "seg://{a}{/b}",
                     "frag://{a}{#f}", "labels://{.a}{.b}", "pair://{name}.{ext}", "six://{a}-{b}-{c}-{d}-{e}-{f}",
                     "tail://{+dir}/{name}"):

        @server.resource(template, name=template.split(":")[0])
        def read(**values: str) -> dict[str, str]:
            return values

    return server


@pytest.mark.parametrize(
    ("uri", "values"),
    [
        ("grid://1/2?fine=yes", {"x": "1", "y": "2", "fine": "yes"}),
        ("file://archive.tar.gz", {"name": "archive.tar", "ext": "gz"}),  # the earlier takes what it can
        ("path://a/b/c?q=1", {"dir": "a/b/c", "q": "1"}),
        ("seg://top/leaf", {"a": "top", "b": "leaf"}),
        ("frag://page#part", {"a": "page", "f": "part"}),
        ("labels://.a.b", {"a": "a", "b": "b"}),
        ("pair://my.data.csv", {"name": "my.data", "ext": "csv"}),
        ("six://n-o-p-q-r-s-t", {"a": "n-o", "b": "p", "c": "q", "d": "r", "e": "s", "f": "t"}),
        ("tail://a/b/c.txt", {"dir": "a/b", "name": "c.txt"}),
    ],
)
def test_separated_variables_still_match_as_before(uri: str, values: dict[str, str]) -> None:
    with in_memory(operators_server()) as client:
        text = client.request("resources/read", {"uri": uri})["contents"][0]["text"]
    assert json.loads(text) == values
