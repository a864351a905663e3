"""A value a tool logs that JSON has no form for is sent as its text, not lost (review r20 L11).

``ctx.log("info", "m", extra={1, 2})`` made the notification fail in the transport's writer with a traceback
on the event loop ("Object of type set is not JSON serializable"), and the client never got it. Now each
such value is sent as ``str(value)`` (as a job on Slurm already sent it), numpy and pandas values as in a
tool's result, and the call goes on as before.
"""

from __future__ import annotations

import logging
import warnings
from pathlib import Path
from typing import Any

import anyio
import numpy as np
import pytest
from client_logs import ask_for_logs
from support import mcp_client, serve

from nanohubmcp import Context, MCPServer
from nanohubmcp.testing import in_memory


class Opaque:
    def __str__(self) -> str:
        return "an opaque thing"


def build() -> MCPServer:
    server = MCPServer("odd logs")

    @server.tool()
    def odd(ctx: Context) -> str:
        """Log values JSON has no form for."""
        ctx.log("info", "m", extra={1, 2})
        ctx.info("n", nested={"path": Path("/tmp/x"), "n": [1, np.float64(2.5)], (1, 2): "a tuple key"},
                 array=np.arange(3), thing=Opaque())
        return "done"

    return server


NESTED = {"path": "/tmp/x", "n": [1, 2.5], "(1, 2)": "a tuple key"}


def test_the_in_memory_client_gets_each_message_with_the_values_as_text(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR), in_memory(build(), log_level="info") as client:
        assert client.call_tool("odd")["content"][0]["text"] == "done"
        sent = [note["data"] for note in client.notifications("notifications/message")]
    assert sent == [{"message": "m", "extra": "{1, 2}"},
                    {"message": "n", "nested": NESTED, "array": [0, 1, 2], "thing": "an opaque thing"}]
    assert not caplog.records, caplog.text  # (before: a traceback on the loop, and the message lost)


def test_the_official_client_over_http_gets_them(caplog: pytest.LogCaptureFixture) -> None:
    logs: list[Any] = []

    async def on_log(params: Any) -> None:
        logs.append(params.data)

    async def main() -> Any:
        with anyio.fail_after(30):
            async with mcp_client(url + "mcp", logging_callback=on_log) as client:
                await ask_for_logs(client)
                return await client.call_tool("odd", {})

    with caplog.at_level(logging.ERROR), serve(build()) as url:
        result = anyio.run(main)
    assert result.content[0].text == "done"
    assert logs == [{"message": "m", "extra": "{1, 2}"},
                    {"message": "n", "nested": NESTED, "array": [0, 1, 2], "thing": "an opaque thing"}]
    assert not caplog.records, caplog.text


def nested(levels: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(levels - 1):
        value = [value]
    return value


def build_deep() -> MCPServer:
    server = MCPServer("deep logs")

    @server.tool()
    def deep(ctx: Context) -> str:
        """Log lists nested to the limit and past it, and a list holding itself."""
        ctx.info("within", v=nested(127))  # the data dict is one level more: 128
        ctx.info("past", v=nested(200), table=np.zeros((1, 1)), ok=1)
        wrapped: Any = np.zeros((1, 1))  # two levels, from level 128 on
        for _ in range(126):
            wrapped = [wrapped]
        ctx.info("past by an array", v=wrapped)
        cycle: list[Any] = []
        cycle.append(cycle)
        ctx.info("cycle", v=cycle)
        return "done"

    return server


def depth(value: Any) -> int:
    return 1 + max(map(depth, value.values() if isinstance(value, dict) else value), default=0) \
        if isinstance(value, (dict, list)) else 0


def test_log_data_nested_past_the_limit_is_cut_and_the_call_answers(caplog: pytest.LogCaptureFixture) -> None:
    """Data nested deeper than the 128 levels a tool's result is held to was sent as it was; the official
    client's parser refused the notification, and with it the whole call (trial41 Q6). Each value is now cut
    where it would pass the limit, the list it holds there sent as its ``str()``."""
    logs: list[Any] = []

    async def on_log(params: Any) -> None:
        logs.append(params.data)

    async def main() -> Any:
        with anyio.fail_after(30):
            async with mcp_client(url + "mcp", logging_callback=on_log) as client:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    await client.set_logging_level("info")
                return await client.call_tool("deep", {})

    with caplog.at_level(logging.ERROR), serve(build_deep()) as url:
        result = anyio.run(main)
    assert result.content[0].text == "done"
    within, past, by_array, cycle = logs
    assert depth(cycle["v"]) == 127  # (the list holding itself: cut at the limit too)
    assert within == {"message": "within", "v": nested(127)}
    assert [depth(data) for data in logs] == [128, 128, 127, 128]
    assert past["table"] == [[0.0]]
    assert past["ok"] == 1
    cut = past["v"]  # a list at level 2 (the data dict is 1)
    for _ in range(127):
        (cut,) = cut
    assert cut == str(nested(200 - 127))  # the list that would be at level 129
    cut = by_array["v"]
    for _ in range(126):
        (cut,) = cut
    assert cut == str(np.zeros((1, 1)))
    assert not caplog.records, caplog.text
