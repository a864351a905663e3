"""A numpy or pandas value reads the same returned alone, inside a dict, or put into a result by a middleware;
one with no JSON form fails on all three, each message naming its type.

Found by a fresh-user trial (trial41 Q4): a bare ``np.longdouble`` answered ``1.5`` where ``{"v": np.longdouble(1.5)}``
failed ("is a longdouble"), a ``longdouble`` array failed saying it was "nested too deeply", and a pandas
``Categorical`` failed alone ("has no MCP form") but inside a dict, or from a layer, was sent as its repr text,
as was any other pandas object (a ``GroupBy``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import pytest

from nanohubmcp import MCPServer, Request
from nanohubmcp.server.middleware import CallNext
from nanohubmcp.testing import RpcError, in_memory

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")

VALUES: dict[str, tuple[Callable[[], Any], Any]] = {  # the value, and what it reads as
    "longdouble": (lambda: np.longdouble(2.5), 2.5),
    "longdouble array": (lambda: np.array([[0.5], [np.nan]], dtype=np.longdouble), [[0.5], [None]]),
    "clongdouble array": (lambda: np.array([1 - 1j], dtype=np.clongdouble), [[1.0, -1.0]]),
    "categorical": (lambda: pd.Categorical(["lo", "hi", "lo"]), ["lo", "hi", "lo"]),
    "sparse array": (lambda: pd.arrays.SparseArray([0.0, 2.5, 0.0]), [0.0, 2.5, 0.0]),
    "masked constant": (lambda: np.ma.masked, None),
}
NO_FORM: Callable[[], Any] = lambda: pd.DataFrame({"a": [1, 1]}).groupby("a")  # noqa: E731


def build() -> MCPServer:
    server = MCPServer("same-values", provenance=False)

    @server.tool()
    def alone(kind: str) -> Any:
        """The value of ``kind`` returned as it is."""
        return NO_FORM() if kind == "no form" else VALUES[kind][0]()

    @server.tool()
    def in_a_dict(kind: str) -> dict[str, Any]:
        """The value of ``kind`` inside a dict."""
        return {"v": NO_FORM() if kind == "no form" else VALUES[kind][0]()}

    @server.tool()
    def plain(kind: str) -> dict[str, Any]:
        """A dict a layer puts the value of ``kind`` into."""
        return {"kind": kind}

    @server.middleware
    async def put(request: Request, call_next: CallNext) -> dict[str, Any]:
        result = await call_next(request)
        if request.method == "tools/call" and request.tool_name == "plain":
            kind = request.params["arguments"]["kind"]
            result["structuredContent"] = {"v": NO_FORM() if kind == "no form" else VALUES[kind][0]()}
        return result

    return server


def _alone_value(result: dict[str, Any]) -> Any:
    """What a tool's value returned alone reads as: its structured data, else its text's JSON (a number)."""
    assert not result["isError"], result
    if "structuredContent" in result:
        return result["structuredContent"]["result"]
    texts = [block["text"] for block in result["content"] if block["type"] == "text"]
    return json.loads(texts[-1]) if texts else None  # (None: no content at all, as for a tool's None)


@pytest.mark.parametrize("kind", list(VALUES))
def test_the_value_reads_the_same_alone_in_a_dict_and_from_a_layer(kind: str) -> None:
    expected = VALUES[kind][1]
    with in_memory(build()) as client:
        alone = client.call_tool("alone", {"kind": kind})
        in_a_dict = client.call_tool("in_a_dict", {"kind": kind})
        from_a_layer = client.call_tool("plain", {"kind": kind})
    assert _alone_value(alone) == expected
    assert not in_a_dict["isError"], in_a_dict
    assert in_a_dict["structuredContent"] == {"v": expected}
    assert from_a_layer["structuredContent"] == {"v": expected}


def test_a_pandas_object_with_no_json_form_fails_on_every_path_naming_its_type(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.ERROR), in_memory(build()) as client:
        alone = client.call_tool("alone", {"kind": "no form"})
        in_a_dict = client.call_tool("in_a_dict", {"kind": "no form"})
        caplog.clear()
        with pytest.raises(RpcError) as refused:
            client.call_tool("plain", {"kind": "no form"})
    assert alone["isError"]
    assert "DataFrameGroupBy, which has no MCP form" in alone["content"][0]["text"]
    assert in_a_dict["isError"]
    assert "$['v'] is a DataFrameGroupBy" in in_a_dict["content"][0]["text"]
    assert refused.value.code == -32603
    logged = [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR]
    assert len(logged) == 1, logged
    assert "Object of type DataFrameGroupBy is not JSON serializable" in logged[0]
