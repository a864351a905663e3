"""``server.call()`` answers what a client receives: JSON values, also where a middleware put numpy values
into the result (or answered itself with them), and the error -32603 where it put in a value JSON has no
form for, as the client gets.

Found by a fresh-user trial (trial36 Z18): a middleware answering ``tools/call`` with
``{"v": np.int64(0), "arr": np.zeros(2)}`` reached an HTTP client as ``{"v": 0, "arr": [0.0, 0.0]}``, but
``server.call()`` handed back the numpy objects themselves: ``r["structuredContent"]["arr"] == [0.0, 0.0]``
raised "the truth value of an array is ambiguous".
"""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer, ProtocolError, Request
from nanohubmcp.server.middleware import CallNext


def build() -> MCPServer:
    server = MCPServer("answers", provenance=False)

    @server.tool()
    def t(x: int) -> dict[str, Any]:
        """x back."""
        return {"v": x}

    async def answer(request: Request, call_next: CallNext) -> dict[str, Any]:
        x = request.params.get("arguments", {}).get("x") if request.method == "tools/call" else None
        if x == 0:  # answered here, never handed on
            return {"content": [{"type": "text", "text": "zero"}], "isError": False,
                    "structuredContent": {"v": np.int64(0), "arr": np.zeros(2), "gap": np.float64("nan")}}
        result = await call_next(request)
        if x == 1:
            result["structuredContent"]["rows"] = np.array([(1, 2.5)], dtype=[("n", "i8"), ("w", "f8")])
        if x == 2:
            result["structuredContent"]["odd"] = {1, 2}
        return result

    server.add_middleware(answer)
    return server


def test_server_call_gives_the_json_values_the_official_client_gets() -> None:
    server = build()

    async def theirs(url: str) -> list[Any]:
        async with mcp_client(url + "mcp") as client:
            return [(await client.call_tool("t", {"x": x})).model_dump(by_alias=True)["structuredContent"]
                    for x in (0, 1)]

    with serve(server) as url:
        zero = server.call("t", {"x": 0})
        one = server.call("t", {"x": 1})
        client_got = asyncio.run(theirs(url))
    assert zero["structuredContent"] == {"v": 0, "arr": [0.0, 0.0], "gap": None}
    assert type(zero["structuredContent"]["v"]) is int
    assert type(zero["structuredContent"]["arr"]) is list
    assert zero.structured == client_got[0]
    assert one["structuredContent"] == {"v": 1, "rows": [{"n": 1, "w": 2.5}]} == client_got[1]


def test_server_call_of_a_result_json_cannot_hold_raises_the_clients_error() -> None:
    server = build()
    with serve(server):
        with pytest.raises(ProtocolError) as refused:
            server.call("t", {"x": 2})
        assert refused.value.code == -32603
        assert "could not be written as JSON" in str(refused.value)
        assert server.call("t", {"x": 3}).structured == {"v": 3}  # still serving
