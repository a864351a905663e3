"""A numpy or pandas value a middleware puts into a result reaches the client as the same value returned by a
tool does: a record array as one object per element (its field names kept), a masked element as null, a
complex number as ``[real, imag]``, a ``datetime64`` as ISO 8601 text, a frame as records.

Found by a fresh-user trial (trial36 Z3): the wire's encoder wrote a middleware's numpy value with numpy's
own ``tolist()``, not with the converters a tool's value passes: a record array lost its field names
(anonymous rows), and a masked array, a complex number or a ``datetime64`` failed the request (-32603).
A dict keyed by numpy integers, which JSON has no form for, answered -32603 as it should, but its
provenance record also failed with a second traceback in the log.

trial41 Q4: a pandas ``Categorical`` or ``SparseArray`` from a layer was sent as its repr text (a tool's failed),
a text array holding a lone surrogate went out with the surrogate (a tool's: U+FFFD), and a ``longdouble``
answered -32603 saying the value was "nested too deeply".
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest
from support import mcp_client, serve, wait_until

from nanohubmcp import MCPServer, Request
from nanohubmcp.server.middleware import CallNext
from nanohubmcp.testing import RpcError, in_memory

VALUES: dict[str, Callable[[], Any]] = {
    "record array": lambda: np.array([(1, 0.5), (2, 1.5)], dtype=[("a", "i4"), ("b", "f8")]),
    "masked array": lambda: np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 0]),
    "complex number": lambda: np.complex128(1 + 2j),
    "complex array": lambda: np.array([1 + 2j, 3 - 4j]),
    "datetime64": lambda: np.datetime64("2020-01-01"),
    "datetime64 array with NaT": lambda: np.array(["2020-01-01T12:00", "NaT"], dtype="datetime64[m]"),
    "float array with NaN": lambda: np.array([1.5, np.nan]),
    "integer": lambda: np.int64(7),
    "frame": lambda: pd.DataFrame({"x": [1, 2], "y": ["p", "q"]}),
    "frame in a list": lambda: [pd.Series([0.5, 1.5], name="s")],
    "categorical": lambda: pd.Categorical(["a", "b", "a"]),
    "sparse array": lambda: pd.arrays.SparseArray([0, 1, 0]),
    "integer array with NA": lambda: pd.array([1, None], dtype="Int64"),
    "period": lambda: pd.Period("2020-01"),
    "interval": lambda: pd.Interval(0, 1),
    "longdouble": lambda: np.longdouble(1.5),
    "clongdouble": lambda: np.clongdouble(1 + 2j),
    "longdouble array": lambda: np.array([1.5, np.inf], dtype=np.longdouble),
    "masked constant": lambda: np.ma.masked,
    "text array with a lone surrogate": lambda: np.array(["a\ud800"]),
}
EXPECTED: dict[str, Any] = {  # what the tool's own value reads as (checked against it below too)
    "record array": [{"a": 1, "b": 0.5}, {"a": 2, "b": 1.5}],
    "masked array": [1.0, None, 3.0],
    "complex number": [1.0, 2.0],
    "complex array": [[1.0, 2.0], [3.0, -4.0]],
    "datetime64": "2020-01-01",
    "datetime64 array with NaT": ["2020-01-01T12:00", None],
    # (trial41 Q4: sent as their repr text, raw lone surrogates, or -32603 "nested too deeply")
    "categorical": ["a", "b", "a"],
    "sparse array": [0, 1, 0],
    "integer array with NA": [1, None],
    "period": "2020-01",
    "interval": "(0, 1]",
    "longdouble": 1.5,
    "clongdouble": [1.0, 2.0],
    "longdouble array": [1.5, None],
    "masked constant": None,
    "text array with a lone surrogate": ["a\ufffd"],
}


def build(**options: Any) -> MCPServer:
    server = MCPServer("added-values", **options)

    @server.tool()
    def returned(kind: str) -> dict[str, Any]:
        """The value of ``kind`` as the tool's own result."""
        return {"extra": VALUES[kind]()}

    @server.tool()
    def bare(kind: str) -> dict[str, Any]:
        """A result the middleware adds the value of ``kind`` to."""
        return {"kind": kind}

    async def enrich(request: Request, call_next: CallNext) -> dict[str, Any]:
        result = await call_next(request)
        if request.method == "tools/call" and request.tool_name == "bare":
            kind = request.params["arguments"]["kind"]
            result["structuredContent"]["extra"] = {np.int64(1): 2} if kind == "odd key" else VALUES[kind]()
        return result

    server.add_middleware(enrich)
    return server


@pytest.mark.parametrize("kind", list(VALUES))
def test_in_memory_the_middlewares_value_reads_as_the_tools(kind: str) -> None:
    with in_memory(build(provenance=False)) as client:
        tools = client.call_tool("returned", {"kind": kind})
        added = client.call_tool("bare", {"kind": kind})
    assert not tools["isError"], tools
    assert added["structuredContent"]["extra"] == tools["structuredContent"]["extra"]
    if kind in EXPECTED:
        assert added["structuredContent"]["extra"] == EXPECTED[kind]


def test_over_streamable_http_the_official_client_reads_the_tools_values() -> None:
    server = build(provenance=False)

    async def both(url: str) -> list[tuple[Any, Any]]:
        async with mcp_client(url + "mcp") as client:
            pairs = []
            for kind in VALUES:
                tools = (await client.call_tool("returned", {"kind": kind})).model_dump(by_alias=True)
                added = (await client.call_tool("bare", {"kind": kind})).model_dump(by_alias=True)
                assert not added["isError"], added
                pairs.append((added["structuredContent"]["extra"], tools["structuredContent"]["extra"]))
            return pairs

    with serve(server) as url:
        pairs = asyncio.run(both(url))
    assert [added for added, _ in pairs] == [tools for _, tools in pairs]
    assert pairs[0][0] == EXPECTED["record array"]


def test_a_key_json_has_no_form_for_answers_minus_32603_with_one_log_record(
    tmp_path: Any, caplog: pytest.LogCaptureFixture
) -> None:
    server = build(state_dir=str(tmp_path))
    with caplog.at_level(logging.ERROR), in_memory(server) as client:
        with pytest.raises(RpcError) as refused:
            client.call_tool("bare", {"kind": "odd key"})
        assert refused.value.code == -32603
        # a later call's provenance record is readable once the writer passed the failed call's (in order)
        later = client.call_tool("bare", {"kind": "integer"})
        uri = later["_meta"]["io.nanohub/provenance"]
        wait_until(lambda: _readable(client, uri), "the later call's provenance record")
    errors = [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR]
    assert len(errors) == 1, errors
    assert "cannot be written as JSON" in errors[0]


def _readable(client: Any, uri: str) -> bool:
    try:
        client.read_resource(uri)
    except RpcError:
        return False
    return True
