"""An integer of more than 4,300 digits is refused in what a client sends and in what a tool returns, whatever
``PYTHONINTMAXSTRDIGITS`` says in the server's environment.

Python's own limit (4,300 digits by default) refused both. With ``PYTHONINTMAXSTRDIGITS=0`` a body holding a
500,000-digit integer was parsed (about 1.5 s of the interpreter's time: a 2,000,000-digit one about 20 s, each
holding every other client) and a tool's result holding one was sent, which the official client cannot read
(pydantic-core holds 4,300 digits). Now both are refused as without the setting, in the same words: the body
with -32700 "a number has more than 4300 digits", the result as the tool's error naming where the int is. So is a
resource template's integer variable (-32602; with the setting it was read and given to the function), and a
version header whose date Python cannot read as an int (``²``, or past 4,300 digits) is an unknown version, not a
server error (it was answered 500).

The server runs in a process of its own, with and without the setting; every request is bounded in time (a
server stuck converting a long number fails the test, and is killed).

Source: RFC 8259 § 6 (an implementation may limit the range of numbers it accepts); MCP 2025-11-25, Server §
Tools § Error Handling.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import ScriptServer, call_or_kill, script_server, watched_client

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

SERVER = """
from nanohubmcp import MCPServer

server = MCPServer("digits")


@server.tool()
def count(n: int) -> int:
    '''How many digits n has.'''
    return len(str(abs(n)))


@server.tool()
def power(exponent: int) -> int:
    '''Ten to the given power.'''
    return 10**exponent


@server.tool()
def table(exponent: int) -> dict:
    '''Ten to the given power, inside a table.'''
    return {"rows": [1, 10**exponent]}


@server.resource("num://{n}")
def digits(n: int) -> str:
    '''How many digits n has.'''
    return str(len(str(abs(n))))


server.run(host="127.0.0.1", port=0)
"""

PARSE_ERROR = -32700
REFUSED = "Parse error: a number has more than 4300 digits; send it as a string"
TOO_LONG = ("is an int of over 4,300 digits, which a client's JSON reader refuses; return it as a string or in fewer "
            "digits")


@pytest.fixture(params=["0", None], ids=["PYTHONINTMAXSTRDIGITS=0", "Python's own limit"])
def served(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ScriptServer]:
    if request.param is None:
        monkeypatch.delenv("PYTHONINTMAXSTRDIGITS", raising=False)
    else:
        monkeypatch.setenv("PYTHONINTMAXSTRDIGITS", request.param)
    with script_server(SERVER, directory=tmp_path) as server:
        yield server


def post(served: ScriptServer, digits: int, body: bytes | None = None,
         headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    """POST a ``tools/call`` of ``count`` with an integer of ``digits`` nines (or ``body``, with ``headers``
    more); the HTTP status and the answer. A server that does not answer within 30 s is killed and the test
    fails."""
    body = body or (b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{"n":'
                    + b"9" * digits + b"}}}")
    request = urllib.request.Request(served.url + "mcp", body, {"Content-Type": "application/json",
                                                                "Accept": "application/json, text/event-stream",
                                                                **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())
    except TimeoutError:
        served.kill()
        raise AssertionError(f"a body with a {digits}-digit integer was not answered in 30 s") from None


@pytest.mark.parametrize("digits", [4_301, 500_000])
def test_a_body_with_a_longer_integer_is_a_parse_error(served: ScriptServer, digits: int) -> None:
    status, answer = post(served, digits)
    assert status == 400, answer
    assert answer["error"]["code"] == PARSE_ERROR
    assert answer["error"]["message"] == REFUSED
    status, answer = post(served, 4_300)  # ... and the server serves on, an integer at the limit too
    assert status == 200, answer
    assert answer["result"]["content"][0]["text"] == "4300"


@pytest.mark.anyio
async def test_a_result_holding_a_longer_int_is_the_tools_error(served: ScriptServer) -> None:
    async with watched_client(served) as client:
        alone = await call_or_kill(served, client, "power", {"exponent": 4_300}, 30)
        assert alone.is_error
        assert alone.content[0].text == f"the number {TOO_LONG}"
        inside = await call_or_kill(served, client, "table", {"exponent": 5_000}, 30)
        assert inside.is_error
        assert inside.content[0].text == f"the tool's result is not JSON-serialisable: $['rows'][1] {TOO_LONG}"
        at_the_limit = await call_or_kill(served, client, "table", {"exponent": 4_299}, 30)
        assert not at_the_limit.is_error
        assert at_the_limit.structured_content == {"rows": [1, 10**4_299]}


def read(served: ScriptServer, uri: str) -> tuple[int, dict[str, Any]]:
    return post(served, 0, json.dumps({"jsonrpc": "2.0", "id": 1, "method": "resources/read",
                                       "params": {"uri": uri}}).encode())


@pytest.mark.parametrize("sign", ["", "-", "+"])
def test_a_resource_templates_longer_integer_variable_is_refused_as_a_bodys(served: ScriptServer, sign: str) -> None:
    status, answer = read(served, f"num://{sign}{'9' * 5_000}")
    assert answer.get("error", {}).get("code") == -32602, answer  # (with the limit lifted it was read: "5000")
    assert answer["error"]["message"].endswith('n: "' + sign + "9" * (60 - len(sign)) + '..." is an integer too '
                                               "long to read: at most 4300 digits"), answer
    status, answer = read(served, f"num://{sign}{'9' * 4_300}")  # at the limit, a sign aside: read
    assert status == 200, answer
    assert answer["result"]["contents"][0]["text"] == "4300"


@pytest.mark.parametrize("version", ["\xb2-01-01", "9" * 5_000 + "-01-01"], ids=["superscript two", "5000 digits"])
def test_a_version_header_whose_date_python_cannot_read_is_refused_not_a_server_error(
        served: ScriptServer, version: str) -> None:
    body = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
    status, answer = post(served, 0, body, {"MCP-Protocol-Version": version})  # (sent as Latin-1, read back so)
    assert status == 400, answer  # (was 500: int() raised on the date's parts)
    assert "error" in answer, answer
    assert "Internal server error" not in json.dumps(answer)
    status, answer = post(served, 0, body)  # ... and the server serves on
    assert status == 200, answer
