"""``nanohubmcp bridge URL``: a desktop client's stdio on one side, a running server's URL on the other.

The bridge reads JSON-RPC messages line by line from stdin (what a desktop client writes to a
server it launched) and sends each to the server over Streamable HTTP; whatever the server sends
back — responses, progress and log notifications, server→client requests such as elicitation,
change notifications on the session's GET stream — is written to stdout, one message per line.
The client's answers to server→client requests travel back the same way. No Node is needed.

Streamable HTTP (MCP 2025-11-25, Transports § Streamable HTTP): every message is its own POST
with ``Accept: application/json, text/event-stream``; the ``Mcp-Session-Id`` the server returns
with the ``initialize`` result is echoed on every later request, with ``MCP-Protocol-Version``;
after the handshake a GET stream carries messages unrelated to a request and is resumed with
``Last-Event-ID`` when it drops. A 2026-07-28 request (``_meta`` names the version) gets the
headers that era requires (``MCP-Protocol-Version``, ``Mcp-Method``, ``Mcp-Name``, and
``Mcp-Param-*`` for tool arguments the server marked with ``x-mcp-header``, learnt from
``tools/list`` results passing through); its ``notifications/cancelled`` closes the request's
response stream, which is how that era cancels over HTTP.

Legacy HTTP+SSE (MCP 2024-11-05, Transports § HTTP with SSE): a URL ending in ``/sse``, or a
server that answers the first POST with 404 or 405, is reached by ``GET`` on its SSE endpoint;
the ``endpoint`` event names where to POST, and every server message arrives on that stream.

A message line may be as long as the HTTP server's default body limit (16 MiB,
:data:`~.session.MAX_LINE_BYTES`); a longer one is answered at once with the -32600 error
``nanohubmcp run --transport stdio`` gives (with the request's id when its first bytes name it),
never dropped in silence.

Every request carries the headers of :class:`~.options.BridgeOptions` (``--header``, ``--cookie``,
``--token``).

The package, one concern a module: :mod:`.options` (what the command line asks for),
:mod:`.exchange` (one HTTP request and its streamed response), :mod:`.session` (the MCP session
relayed between the two sides), :mod:`.response_stream` (one request's SSE response and its
resumption), :mod:`.headers` (the 2026-07-28 request headers), :mod:`.renewal` (a new session when
the server forgot the old one), :mod:`.refusal` (what a refused request's answer said, e.g. the
Jupyter server extension's word that a notebook's server stopped), :mod:`.stdio` (the client's stdin
and stdout, and the process's life: its stop signals, a stdio server's), :mod:`.pending` (the client's requests not
answered yet), :mod:`.ending` (how it ends: the end of input, a stop signal, and the calls it cancels then).

What the bridge prints on stderr and answers its client shows no credential: the URL's ``?token=``
(a Jupyter token), a password in it, and the ``--token``/``--header``/``--cookie`` values appear as
``***``. A URL or token still holding a placeholder (``<your Jupyter token>``) is refused at start.
"""

from __future__ import annotations

from .exchange import CONNECT_TIMEOUT, Exchange, HTTPFailure
from .headers import header_value
from .options import SSE_ONLY, BridgeOptions
from .response_stream import MAX_RECONNECTS, RECONNECT_SECONDS, ResponseStream
from .session import MAX_LINE_BYTES, Bridge
from .stdio import DRAIN_SECONDS, run_bridge

__all__ = [
    "CONNECT_TIMEOUT",
    "DRAIN_SECONDS",
    "MAX_LINE_BYTES",
    "MAX_RECONNECTS",
    "RECONNECT_SECONDS",
    "SSE_ONLY",
    "Bridge",
    "BridgeOptions",
    "Exchange",
    "HTTPFailure",
    "ResponseStream",
    "header_value",
    "run_bridge",
]
