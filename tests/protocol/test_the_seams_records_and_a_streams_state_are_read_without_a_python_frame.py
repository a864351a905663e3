"""What every message crosses at the connection seam is made and read in C: the record a message is read into
(:class:`~nanohubmcp.server.intake.Incoming`), the record serving answers (:class:`~nanohubmcp.server.connection.Reply`)
and whether a request's stream opened (:attr:`RequestContext.stream_opened`, asked of every call's answer by
:func:`~nanohubmcp.server.results.event_bound.goes_as_event`).

Before: both records had a Python ``__new__`` and a Python property a field, and ``stream_opened`` was a property:
each a Python frame and a module boundary on every call's path (4 of the 44 module hops of a steady ``tools/call``
over Streamable HTTP, 2 of the 31 over stdio: bench/hops.md). Now the records are made by tuple's own constructor
and read with ``operator.itemgetter``, and ``stream_opened`` is an attribute kept as the stream is set.
"""

from __future__ import annotations

import asyncio
import copy
import pickle
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.protocol import jsonrpc
from nanohubmcp.server.connection import Reply
from nanohubmcp.server.intake import Incoming
from nanohubmcp.server.results.event_bound import goes_as_event
from nanohubmcp.server.wire.request import RequestContext
from nanohubmcp.server.wire.streams import OutboundStream
from nanohubmcp.testing import MemoryClient

pytestmark = pytest.mark.anyio


@contextmanager
def entered() -> Iterator[list[str]]:
    """The ``module:function`` (its qualified name) of each Python function of this package entered in this
    thread meanwhile."""
    seen: list[str] = []

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        name = frame.f_globals.get("__name__", "")
        if event == "call" and name.startswith("nanohubmcp."):
            code = frame.f_code
            seen.append(f"{name}:{getattr(code, 'co_qualname', code.co_name)}")

    previous: Callable[..., Any] | None = sys.getprofile()
    sys.setprofile(profile)
    try:
        yield seen
    finally:
        sys.setprofile(previous)


async def test_a_served_call_makes_and_reads_its_records_without_a_python_frame() -> None:
    server = MCPServer("records")

    @server.tool()
    def add(a: float, b: float) -> float:
        """Add two numbers."""
        return a + b

    client = MemoryClient(server)
    for _ in range(10):  # the steady state: a quick sync tool runs on the loop
        await client.call_tool("add", {"a": 1, "b": 2})
    with entered() as seen:
        result = await client.call_tool("add", {"a": 1, "b": 2})
    assert result["content"][0]["text"] == "3.0"
    assert "nanohubmcp.server.connection:Connection.serve" in seen  # (the seam served it)
    assert [entry for entry in seen if entry.split(":")[1].split(".")[0] in ("Incoming", "Reply")] == []


def test_the_records_read_their_fields_and_copy_and_pickle_as_themselves() -> None:
    message = jsonrpc.classify({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    with entered() as seen:
        incoming = Incoming((message, False, None, None, None, None, False))
        reply = Reply(({"jsonrpc": "2.0", "id": 1, "result": {}}, None))
        fields = (incoming.message, incoming.modern, incoming.request, incoming.batch, incoming.version,
                  incoming.session, incoming.large, reply.message, reply.session)
    assert seen == []
    assert fields == (message, False, None, None, None, None, False, {"jsonrpc": "2.0", "id": 1, "result": {}}, None)
    assert repr(reply) == "Reply(message={'jsonrpc': '2.0', 'id': 1, 'result': {}}, session=None)"
    for record in (reply, Incoming((None, False, None, [{"jsonrpc": "2.0", "method": "x"}], None, None, True))):
        for made in (copy.copy(record), copy.deepcopy(record), pickle.loads(pickle.dumps(record))):
            assert type(made) is type(record)
            assert made == record
    with pytest.raises(AttributeError):
        reply.message = None  # type: ignore[misc]


async def test_whether_a_stream_opened_is_read_without_a_frame_of_the_request() -> None:
    request = RequestContext(jsonrpc.classify({"jsonrpc": "2.0", "id": 1, "method": "tools/call"}), "2025-11-25",
                             asyncio.get_running_loop())
    request.transport = "streamable-http"
    assert not request.stream_opened
    request.defer_stream(lambda: OutboundStream("x", resumable=False))
    with entered() as seen:
        goes = goes_as_event(request)
    assert (goes, seen) == (False, ["nanohubmcp.server.results.event_bound:goes_as_event"])
    assert request.stream is not None  # made when first asked for: a related message goes out
    assert request.stream_opened
    assert goes_as_event(request)
    request.stream = None
    assert not request.stream_opened
    request.stream = OutboundStream("y", resumable=False)
    assert request.stream_opened
    opened = RequestContext(request.message, "2025-11-25", request.loop, stream=OutboundStream("z", resumable=False))
    assert opened.stream_opened
