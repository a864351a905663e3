"""Calling a tool from the program that serves it, the way a client would.

:func:`call_tool` sends a ``tools/call`` through a :class:`~.connection.Connection` of its own
(transport ``"direct"``): the same lookup, argument validation, tool run and result shaping
as a request from the network, at the latest handshake-era protocol version. No session: the
call is sessionless, like a REST call. :class:`CallResult` is the ``CallToolResult`` it
answers, and shows itself in a notebook as a client would show it (text as text, images as
images, structured content as JSON).

Source: MCP 2025-11-25, Server § Tools § Calling Tools; the result shapes of § Tool Result.
"""

from __future__ import annotations

import asyncio
import html
import itertools
import json
from collections.abc import Iterator, Mapping
from typing import Any

from ..errors import ConfigurationError, ProtocolError
from ..protocol import jsonrpc, versions
from .calls.workers import waits_on_loop
from .connection import Connection, ConnectionHost

__all__ = ["CallResult", "call_from_thread", "call_tool"]

_ids = itertools.count(1)


class CallResult(Mapping[str, Any]):
    """A ``CallToolResult`` as the dict a client receives (JSON values), shown as a client shows it.

    Attributes:
        is_error: the result's ``isError``.
        text: the text blocks joined by newlines.
        structured: ``structuredContent``, or None.
    """

    def __init__(self, result: dict[str, Any]) -> None:
        self._result: dict[str, Any] = result

    def __getitem__(self, key: str) -> Any:
        return self._result[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._result)

    def __len__(self) -> int:
        return len(self._result)

    def __repr__(self) -> str:
        return f"CallResult({self._result!r})"

    @property
    def is_error(self) -> bool:
        return bool(self.get("isError"))

    @property
    def text(self) -> str:
        return "\n".join(block.get("text", "") for block in self.get("content", []) if block.get("type") == "text")

    @property
    def structured(self) -> Any:
        return self.get("structuredContent")

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict[str, Any]:
        plain: list[str] = []
        rich: list[str] = []
        for block in self.get("content", []):
            kind = block.get("type")
            if kind == "text":
                plain.append(block.get("text", ""))
                rich.append(f"<pre>{html.escape(block.get('text', ''))}</pre>")
            elif kind == "image" and str(block.get("mimeType", "")).startswith("image/"):
                mime = html.escape(block["mimeType"])
                plain.append(f"[image {block['mimeType']}]")
                rich.append(f"<img src='data:{mime};base64,{html.escape(block.get('data', ''))}'/>")
            else:
                shown = json.dumps(block, indent=2)[:2000]
                plain.append(shown)
                rich.append(f"<pre>{html.escape(shown)}</pre>")
        if "structuredContent" in self and not plain:
            shown = json.dumps(self["structuredContent"], indent=2)
            plain.append(shown)
            rich.append(f"<pre>{html.escape(shown)}</pre>")
        if self.is_error:
            plain.insert(0, "Tool error (isError: true):")
            rich.insert(0, "<b style='color:#b00'>Tool error (isError: true)</b>")
        bundle = {"text/plain": "\n".join(plain), "text/html": "".join(rich)}
        images = [b for b in self.get("content", []) if b.get("type") == "image"]
        if len(images) == 1 and not self.text and images[0].get("mimeType") in ("image/png", "image/jpeg"):
            bundle[images[0]["mimeType"]] = images[0].get("data", "")
        return bundle


async def call_tool(core: ConnectionHost, name: str, arguments: dict[str, Any] | None = None, *,
                    server: object = None) -> CallResult:
    """Call tool ``name`` through the server (on the loop that serves it).

    Returns:
        The ``CallToolResult`` as a client receives it (JSON values: numbers, text, lists, dicts,
        None); a tool that failed, or arguments its schema refuses, give ``isError: true`` (the
        answer a 2025-11-25 client gets).
    Raises:
        ProtocolError: the call's JSON-RPC error (e.g. -32602 for an unknown tool; -32603 for a
            result a middleware put a value into that JSON has no form for).
    ``server`` is what the tool's ``ctx.server`` gives (the ``MCPServer``).
    """
    # (only None is no arguments: [] or 0 is refused -32602 as on the wire; trial41 Q11)
    params: dict[str, Any] = {"name": name, "arguments": {} if arguments is None else arguments}
    message = jsonrpc.classify(jsonrpc.request(f"direct-{next(_ids)}", "tools/call", params))
    connection = Connection(core, "direct", server)
    reply = await connection.serve(connection.request(message, version=versions.LATEST_HANDSHAKE))
    # as a client reads it: JSON values (a middleware's numpy values as a tool's; one JSON cannot hold: -32603)
    response = connection.received(reply.message or {})
    if "error" in response:
        error = response["error"]
        raise ProtocolError(str(error.get("message")), error.get("data"), code=error.get("code"))
    return CallResult(response["result"])


def call_from_thread(
    core: ConnectionHost, loop: asyncio.AbstractEventLoop | None, name: str, arguments: dict[str, Any] | None, *,
    server: object = None,
) -> CallResult:
    """:func:`call_tool` from a thread other than the serving loop's; waits for the answer.

    Raises:
        ConfigurationError: the server is not running, or this thread runs its loop (waiting
            would stop the very loop that must serve the call: use ``call_tool`` and await it).
    """
    if loop is None or loop.is_closed() or not loop.is_running():
        raise ConfigurationError(
            "server.call needs a running server: start it first (server.start(); in a notebook, "
            "a %%mcp_tool cell or %mcp start)"
        )
    try:
        here = asyncio.get_running_loop()
    except RuntimeError:
        here = None
    if here is loop:
        raise ConfigurationError(
            "server.call would wait on the event loop that serves the call; "
            "write `await server.call_async(name, arguments)` instead"
        )
    waits_on_loop()  # a sync tool calling back into its server never runs on that loop itself
    return asyncio.run_coroutine_threadsafe(call_tool(core, name, arguments, server=server), loop).result()
