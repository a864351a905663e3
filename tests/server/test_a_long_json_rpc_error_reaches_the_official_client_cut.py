"""A JSON-RPC error's message and data were not cut (only an error result's text was, trial54 N3): a tool raising
``InvalidArguments`` with a 3 MB message under ``argument_errors="protocol"``, a 2026-07-28 tool raising a
``ProtocolError`` with a 3 MB message and data, or a resource raising ``ResourceNotFound`` with a 3 MB message, each
answered as an SSE event (a progress report first, or legacy SSE), gave an event over the official ``mcp`` client's
1 MiB, which it drops: "Server-sent event exceeded the 1048576 byte limit", the error never read. Now a JSON-RPC
error's message, and its data as JSON text, are cut as a progress message is (``MAX_NOTIFIED_CHARS`` characters,
then saying so), wherever the error goes; short ones go whole. A real server over HTTP, the official client."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from support import mcp_client, serve

from nanohubmcp import Context, MCPServer
from nanohubmcp.errors import InvalidArguments, ProtocolError, ResourceNotFound, to_error_object
from nanohubmcp.errors.sent_text import MAX_NOTIFIED_CHARS

pytestmark = pytest.mark.timeout(120)

SIZE = 3_000_000


def cut(text: str) -> str:
    """``text`` as a client is sent it when it is longer than ``MAX_NOTIFIED_CHARS``."""
    return text[:MAX_NOTIFIED_CHARS] + f"… [cut: {len(text)} characters in all; a client is sent {MAX_NOTIFIED_CHARS}]"


def build() -> MCPServer:
    server = MCPServer("errs", argument_errors="protocol")

    @server.tool()
    def refuses(size: int, ctx: Context) -> str:
        """One progress report, then the tool's own argument check refuses with a message of ``size`` characters."""
        ctx.report_progress(1, 1)
        raise InvalidArguments("a" * size)

    @server.tool()
    def protocol(size: int, ctx: Context) -> str:
        """One progress report, then a protocol error of ``size`` characters, with data as long."""
        ctx.report_progress(1, 1)
        raise ProtocolError("p" * size, data={"log": "d" * size})

    @server.tool()
    def numbers(size: int, ctx: Context) -> str:
        """One progress report, then a protocol error whose data holds a numpy array of ``size`` zeros."""
        import numpy as np

        ctx.report_progress(1, 1)
        raise ProtocolError("refused", data={"values": np.zeros(size)})

    @server.resource("data://missing")
    def missing() -> str:
        """Never found: its message is 3 MB."""
        raise ResourceNotFound("m" * SIZE)

    return server


def failed(url: str, era: str, call: Any) -> MCPError:
    """The error the official client in ``era`` raised for ``call(client)``."""
    async def main() -> MCPError:
        with anyio.fail_after(60):
            if era == "sse":
                client = mcp_client(url + "sse", transport="sse")
            elif era == "2025-11-25":
                client = mcp_client(url + "mcp")
            else:
                from mcp import Client

                client = Client(url + "mcp", mode="2026-07-28")
            async with client as session:
                with pytest.raises(MCPError) as raised:
                    await call(session)
                return raised.value

    return anyio.run(main)


async def _nothing(*_: Any) -> None:
    return None


@pytest.mark.parametrize("era", ["2025-11-25", "sse"])
def test_invalid_arguments_over_one_event_reach_the_client_cut(era: str) -> None:
    with serve(build()) as url:
        error = failed(url, era, lambda client: client.call_tool("refuses", {"size": SIZE}, progress_callback=_nothing))
    assert error.code == -32602
    assert error.message == cut("a" * SIZE)
    assert error.data == cut('{"errors":["' + "a" * SIZE + '"]}')


def test_a_protocol_error_of_the_stateless_era_reaches_the_client_cut() -> None:
    with serve(build()) as url:
        error = failed(url, "2026-07-28",
                       lambda client: client.call_tool("protocol", {"size": SIZE}, progress_callback=_nothing))
    assert error.code == -32004
    assert error.message == cut("p" * SIZE)
    assert error.data == cut('{"log":"' + "d" * SIZE + '"}')


def test_numpy_data_is_measured_as_the_wire_writes_it_and_reaches_the_client_cut() -> None:
    """(review r30 F3) The data was measured with the standard library's json, which cannot write a numpy array:
    it was left whole, the wire's writer wrote its 1.2 MB and the official client dropped the event."""
    pytest.importorskip("numpy")
    with serve(build()) as url:
        error = failed(url, "2026-07-28",
                       lambda client: client.call_tool("numbers", {"size": 300_000}, progress_callback=_nothing))
    assert error.code == -32004
    assert error.message == "refused"
    assert error.data == cut('{"values":[' + ",".join(["0.0"] * 300_000) + "]}")


def test_data_the_wire_cannot_write_is_left_to_the_transport() -> None:
    """The transport's writer answers such an error without its data and logs why
    (tests/streams/test_an_answer_json_cannot_hold_is_answered_alone.py): the cut leaves it as it is."""
    error = to_error_object(ProtocolError("refused", data={"seen": {1, 2}}))
    assert error == {"code": -32004, "message": "refused", "data": {"seen": {1, 2}}}


@pytest.mark.parametrize("era", ["sse", "2025-11-25"])
def test_a_resource_not_found_reaches_the_client_cut(era: str) -> None:
    with serve(build()) as url:
        error = failed(url, era, lambda client: client.read_resource("data://missing"))
    assert error.code == -32002
    assert error.message == cut("m" * SIZE)


def test_short_errors_go_whole_and_long_text_data_stays_text() -> None:
    short = ProtocolError("no such row", data={"rows": [1, 2]}, code=-32010)
    assert to_error_object(short) == {"code": -32010, "message": "no such row", "data": {"rows": [1, 2]}}
    long = ProtocolError("x" * (MAX_NOTIFIED_CHARS + 1), data="y" * (MAX_NOTIFIED_CHARS + 5))
    assert to_error_object(long) == {"code": -32004, "message": cut("x" * (MAX_NOTIFIED_CHARS + 1)),
                                     "data": cut("y" * (MAX_NOTIFIED_CHARS + 5))}
    assert long.message == "x" * (MAX_NOTIFIED_CHARS + 1)  # the exception (and the server's log) keeps it whole
    exact = ProtocolError("x" * MAX_NOTIFIED_CHARS, data=["z" * (MAX_NOTIFIED_CHARS - 4)])  # its JSON: 65,536
    assert to_error_object(exact) == {"code": -32004, "message": "x" * MAX_NOTIFIED_CHARS,
                                      "data": ["z" * (MAX_NOTIFIED_CHARS - 4)]}
