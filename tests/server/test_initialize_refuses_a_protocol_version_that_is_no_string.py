"""``initialize`` whose ``params.protocolVersion`` is no string (a number, an object, a list, a boolean) is
invalid params, -32602 naming the field and the versions spoken, and opens no session; a missing or null
one, or a string naming no version spoken here, is still answered with the latest handshake-era version
(the rulings' "bare initialize"; MCP 2025-11-25, Basic § Lifecycle § Version Negotiation).

Trial56 F7: ``"protocolVersion": 123`` was answered 200 with 2025-11-25, a session opened, though every
other field of the wrong type was refused. Fails before (the number was accepted).
Trial57 F4: ``2025.1125`` was said to be "not a fraction" (JSON has no fractions): it is "not the number
2025.1125".
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest
from support import serve

from nanohubmcp import MCPServer

HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def initialize(base: str, params: dict[str, Any]) -> tuple[int, str | None, dict[str, Any]]:
    message = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"capabilities": {}, "clientInfo": {"name": "t", "version": "1"}, **params}}
    request = urllib.request.Request(base + "mcp", json.dumps(message).encode(), HEADERS)
    with urllib.request.urlopen(request, timeout=10) as answer:
        return answer.status, answer.headers.get("Mcp-Session-Id"), json.loads(answer.read())


@pytest.fixture(scope="module")
def base() -> Any:
    with serve(MCPServer("versions")) as url:
        yield url


@pytest.mark.parametrize(("value", "kind"), [(123, "an integer"), ({"v": "2025-11-25"}, "an object"),
                                             (["2025-11-25"], "an array"), (True, "a boolean"),
                                             (2025.1125, "not the number 2025.1125")])
def test_a_version_that_is_no_string_is_invalid_params(base: str, value: object, kind: str) -> None:
    status, session, answer = initialize(base, {"protocolVersion": value})
    assert status == 200  # a method's -32602 in the handshake era (docs/api/http.md)
    assert session is None
    assert answer["error"]["code"] == -32602
    message = answer["error"]["message"]
    assert "params.protocolVersion must be a string" in message
    assert "2025-11-25" in message
    assert kind in message


@pytest.mark.parametrize("params", [{}, {"protocolVersion": None}, {"protocolVersion": "1999-01-01"}])
def test_a_missing_or_unknown_version_gets_the_latest(base: str, params: dict[str, Any]) -> None:
    status, session, answer = initialize(base, params)
    assert status == 200
    assert session
    assert answer["result"]["protocolVersion"] == "2025-11-25"
