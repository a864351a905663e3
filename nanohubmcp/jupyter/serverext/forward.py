"""The extension's Tornado handlers: forward ``<base_url>nanohubmcp/<port>/…`` to a kernel's MCP server.

:func:`install` adds two routes to Jupyter Server and leaves the marker file kernels look for
(:mod:`.registry`):

- ``<base_url>nanohubmcp/`` (GET): ``{"name": "nanohubmcp", "version": ...}``, to say it is here;
- ``<base_url>nanohubmcp/<port>/<path>`` (POST, GET, DELETE): the request goes to
  ``http://127.0.0.1:<port>/<path>`` over a connection of its own; the reply's status and
  headers are passed back, then every body chunk is written and flushed as it arrives (an SSE
  event reaches the client when the kernel sends it). A slow client slows the read from the
  kernel (each chunk waits for the previous flush), so nothing piles up here; a client that
  goes away closes the kernel connection.

Both routes are Jupyter API routes: Jupyter's authentication (``Authorization: token …`` or the
login cookie, whose POSTs also need the XSRF token, as every Jupyter API call) and its
authorizer (``execute`` on ``kernels``: calling a notebook's tools runs code in its kernel).
The forwarded request drops hop-by-hop headers (RFC 9110 § 7.6.1) and Jupyter's own
credentials (the ``Authorization`` header Jupyter authenticated the request with, cookies, a
``token`` query parameter), which the kernel's server has no use for. When the kernel's server
wants a token of its own, send it as ``Authorization: Bearer …`` and Jupyter's token as
``?token=…`` in the URL: the Bearer header then passes.

The path is forwarded as the client sent it, still percent-encoded (``/tools/a%2Fb`` stays one segment, ``%3F``
stays part of the path, never a query the ``token`` filter did not see); a path holding a character a URL path
does not hold as written (a space, ``"``, a non-ASCII byte: RFC 3986 § 3.3), a ``%`` not followed by two hex
digits, or an escaped control character (``%0D%0A``, ``%00``: no MCP route holds one) → 400 naming it.

Refusals: a port no kernel of this server registered, or registered by a kernel process that has
since died (even if Jupyter restarted the kernel under the same id) → 404; a registered kernel whose server
does not answer → 502. Both as Jupyter's JSON error bodies with a message saying what happened and what
to do. A kernel removes its registration when it exits normally (a restart or shutdown from the notebook),
so the extension remembers which kernel process each port it forwarded belonged to: a client that comes
back is told whether that kernel restarted, was shut down, or stopped its server, and what to run again.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import os
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, quote, urlencode

from jupyter_server.auth.decorator import authorized
from jupyter_server.base.handlers import APIHandler, JupyterHandler
from jupyter_server.utils import url_path_join
from tornado import httputil, iostream, web
from tornado.http1connection import HTTP1Connection, HTTP1ConnectionParameters
from tornado.tcpclient import TCPClient

from ..._version import __version__
from . import registry

if TYPE_CHECKING:
    from jupyter_server.serverapp import ServerApp

__all__ = ["ForwardHandler", "InfoHandler", "install"]

UPSTREAM_HOST = "127.0.0.1"
"""Where kernels' MCP servers listen (the notebook's default interface)."""
CONNECT_TIMEOUT = 10.0
"""Seconds to open the connection to the kernel's server."""
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    }
)
"""Headers that belong to one connection, never forwarded (RFC 9110 § 7.6.1)."""
_NOT_FORWARDED = frozenset({"host", "cookie", "content-length"})
_PATH_CHARACTER = re.compile(r"[A-Za-z0-9._~!$&'()*+,;=:@/-]|%[0-9A-Fa-f]{2}")
"""What a URL path holds as written (RFC 3986 § 3.3: a ``pchar`` or ``/``)."""
_CONTROL_ESCAPE = re.compile(r"%(?:[01][0-9A-Fa-f]|7[Ff])")
_UPSTREAM = HTTP1ConnectionParameters(
    no_keep_alive=True,
    decompress=False,
    # Chunks are relayed one at a time (each waits for the client's flush); nothing is held
    # here, so a long event stream is not cut at Tornado's default 100 MB body limit.
    max_body_size=1 << 62,
)


_RERUN = (
    "run `%load_ext nanohubmcp` and the cells that start the server (its %%mcp_tool cells, or the "
    "server.run() cell) again, then use the URL %mcp url shows and, unless you set the token yourself, "
    "the new token %mcp token (or print(server.token)) shows"
)
_NEVER = (
    "no notebook kernel of this Jupyter server serves MCP on port {port}: start the server in the notebook "
    "(a %%mcp_tool cell, %mcp start or server.run()) and use the URL %mcp url shows; after a kernel restart, "
    "run `%load_ext nanohubmcp` and those cells again"
)
_SHUT_DOWN = (
    "the notebook kernel that served MCP on port {port} was shut down (its notebook closed or its kernel "
    "stopped), which ended its MCP server: open the notebook, " + _RERUN
)
_RESTARTED = (
    "the notebook kernel that served MCP on port {port} has died or restarted, which ended its MCP server "
    "(a restarted kernel starts empty): " + _RERUN
)
_STOPPED = (
    "the notebook's MCP server on port {port} was stopped (%mcp stop, server.stop(), or moved to another "
    "port) while its kernel runs on: %mcp start (or the server.run() cell) in the notebook starts it again; "
    "then use the URL %mcp url shows"
)
"""The 404 messages of a port no kernel serves now: never registered, its kernel shut down, restarted, or alive
with its server stopped (``{port}`` filled in)."""


def _connection_headers(headers: httputil.HTTPHeaders) -> set[str]:
    """Hop-by-hop names, plus those a ``Connection`` header lists (lower case)."""
    named = {part.strip().lower() for value in headers.get_list("Connection") for part in value.split(",")}
    return set(HOP_BY_HOP) | named


class InfoHandler(APIHandler):
    """``GET <base_url>nanohubmcp/``: the extension is loaded (authenticated)."""

    auth_resource = "kernels"

    @web.authenticated
    @authorized("read")
    def get(self) -> None:
        self.finish({"name": registry.ROUTE, "version": __version__, "route": self.request.path})


class _Relay(httputil.HTTPMessageDelegate):
    """Writes the kernel server's reply to the client as it is read (see the module docstring)."""

    def __init__(self, handler: ForwardHandler) -> None:
        self.handler = handler

    def headers_received(
        self, start_line: httputil.RequestStartLine | httputil.ResponseStartLine, headers: httputil.HTTPHeaders
    ) -> Any:
        assert isinstance(start_line, httputil.ResponseStartLine)
        handler = self.handler
        handler.set_status(start_line.code, start_line.reason or None)
        handler.clear_header("Content-Type")  # Tornado's default (text/html) is not the kernel's
        dropped = _connection_headers(headers)
        seen: set[str] = set()
        for name, value in headers.get_all():
            key = name.lower()
            if key in dropped:
                continue
            if key in seen:
                handler.add_header(name, value)
            else:
                handler.set_header(name, value)
                seen.add(key)
        handler.relayed_headers = True
        return handler.flush()

    def data_received(self, chunk: bytes) -> Any:
        self.handler.write(chunk)
        return self.handler.flush()


class ForwardHandler(APIHandler):
    """``<base_url>nanohubmcp/<port>/<path>``: forward to a registered kernel port (module docstring)."""

    auth_resource = "kernels"

    def initialize(self, runtime_dir: str, served: dict[int, dict[str, Any]], root: str) -> None:
        self.runtime_dir = runtime_dir
        self.root = root  # <base_url>nanohubmcp, as the route's pattern holds it
        self.served = served  # port -> the last registration forwarded to (shared by every request)
        self.relayed_headers = False
        self._upstream: iostream.IOStream | None = None
        self._client_gone = False

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        """Jupyter's JSON error reply ``{message, reason}``, with the message as written: Tornado
        (6.5+) shows a message given without arguments with each ``%`` doubled, for its log line,
        and Jupyter's reply would carry that escaped text."""
        error = (kwargs.get("exc_info") or (None, None, None))[1]
        message = error.get_message() if isinstance(error, web.HTTPError) and hasattr(error, "get_message") else None
        if not message or not isinstance(error, web.HTTPError):
            super().write_error(status_code, **kwargs)
            return
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps({"message": message, "reason": error.reason}))

    def _registered(self, port: int) -> None:
        """Raise 404 unless a running kernel of this server registered ``port``."""
        if not 0 < port < 65536:
            raise web.HTTPError(404, f"{port} is not a TCP port")
        found = registry.read_port(self.runtime_dir, port)
        if found is None or found["kernel_id"] not in self.kernel_manager:
            raise web.HTTPError(404, self._not_served(port, found or self.served.get(port)))
        if not self._registered_by_running_process(found):
            # The kernel died (and may have been restarted under the same id): its port is free for any
            # process to take, which would then get the client's token and answer in the notebook's name.
            registry.remove_if_owned(registry.port_path(self.runtime_dir, port), "pid", found.get("pid"))
            raise web.HTTPError(404, _RESTARTED.format(port=port))
        self.served[port] = found

    def _not_served(self, port: int, last: dict[str, Any] | None) -> str:
        """Why no kernel serves ``port`` now, from ``last``, its last registration (None: never seen)."""
        if last is None:
            return _NEVER.format(port=port)
        if last["kernel_id"] not in self.kernel_manager:
            return _SHUT_DOWN.format(port=port)
        if not self._registered_by_running_process(last):
            return _RESTARTED.format(port=port)
        return _STOPPED.format(port=port)

    def _registered_by_running_process(self, found: dict[str, Any]) -> bool:
        """Whether the registration's pid is the live process of its kernel now.

        With a local kernel Jupyter knows its process id (the provisioner's ``pid``), which must be the
        one that wrote the file or an ancestor of it (a kernelspec may start Python through a wrapper);
        a kernel without a known pid (another provisioner) needs the file's pid alive.
        """
        try:
            kernel = self.kernel_manager.get_kernel(found["kernel_id"])
        except KeyError:
            return False
        current = getattr(getattr(kernel, "provisioner", None), "pid", None)
        if isinstance(current, int) and not isinstance(current, bool):
            return registry.is_alive(current) and registry.descends_from(found.get("pid"), current)
        return registry.is_alive(found.get("pid"))

    def _upstream_target(self, port_text: str) -> str:
        """The request target for the kernel's server: the path after ``<root>/<port>`` as the client sent it
        (Tornado's path arguments are decoded once: ``%3F`` would become a query, ``%0D%0A`` a broken request
        line), the query without Jupyter's ``token``. Raises ``HTTPError(400)`` naming what cannot be forwarded."""
        raw = self.request.path[len(self.root) + 1 + len(port_text):]  # the route matched the raw path
        _check_forwardable(raw, port_text)
        query = [(k, v) for k, v in parse_qsl(self.request.query, keep_blank_values=True) if k != "token"]
        return "/" + raw.lstrip("/") + (f"?{urlencode(query)}" if query else "")

    def _is_jupyter_credential(self, authorization: str) -> bool:
        """Whether this ``Authorization`` value is what Jupyter authenticated the request with.

        Jupyter reads its token from ``?token=`` first, else from ``Authorization: token|bearer …``.
        So a ``Bearer`` header meant for the kernel's server passes when Jupyter's token came in the
        query (or the request was not token-authenticated, e.g. by cookie).
        """
        scheme = authorization.strip().split(None, 1)[0].lower() if authorization.strip() else ""
        if scheme == "token":
            return True
        return scheme == "bearer" and not self.get_argument("token", "") and bool(self.token_authenticated)

    def _forwarded_headers(self, port: int) -> httputil.HTTPHeaders:
        dropped = _connection_headers(self.request.headers) | _NOT_FORWARDED
        out = httputil.HTTPHeaders()
        for name, value in self.request.headers.get_all():
            key = name.lower()
            if key in dropped or (key == "authorization" and self._is_jupyter_credential(value)):
                continue
            out.add(name, value)
        out["Host"] = f"{UPSTREAM_HOST}:{port}"
        out["Connection"] = "close"
        if self.request.body or self.request.method in ("POST", "PUT", "PATCH"):
            out["Content-Length"] = str(len(self.request.body))
        return out

    async def _forward(self, port_text: str) -> None:
        target = self._upstream_target(port_text)
        port = int(port_text)
        self._registered(port)
        try:
            stream = await TCPClient().connect(UPSTREAM_HOST, port, timeout=CONNECT_TIMEOUT)
        except (OSError, iostream.StreamClosedError, asyncio.TimeoutError) as exc:  # (two classes on Python 3.10)
            raise web.HTTPError(
                502,
                f"the notebook's MCP server on port {port} does not answer ({exc}): is it still running? "
                "(%mcp status in the notebook)",
            ) from None
        self._upstream = stream
        connection = HTTP1Connection(stream, True, _UPSTREAM)
        try:
            start = httputil.RequestStartLine(self.request.method or "GET", target, "HTTP/1.1")
            await connection.write_headers(start, self._forwarded_headers(port))
            if self.request.body:
                await connection.write(self.request.body)
            connection.finish()
            await connection.read_response(_Relay(self))
        except iostream.StreamClosedError:
            pass  # one side hung up; which one decides below
        finally:
            connection.close()
            self._upstream = None
        if not self.relayed_headers and not self._client_gone:
            raise web.HTTPError(502, f"the notebook's MCP server on port {port} closed the connection without a reply")

    def on_connection_close(self) -> None:
        """The client went away: close the kernel connection (an idle event stream ends too)."""
        self._client_gone = True
        if self._upstream is not None:
            self._upstream.close()

    def finish(self, *args: Any, **kwargs: Any) -> Any:
        # Keep the kernel server's Content-Type: APIHandler.finish would set application/json.
        self.update_api_activity()
        return JupyterHandler.finish(self, *args, **kwargs)

    @web.authenticated
    @authorized("execute")
    async def post(self, port: str, _decoded: str | None = None) -> None:
        await self._forward(port)

    @web.authenticated
    @authorized("execute")
    async def get(self, port: str, _decoded: str | None = None) -> None:
        await self._forward(port)

    @web.authenticated
    @authorized("execute")
    async def delete(self, port: str, _decoded: str | None = None) -> None:
        await self._forward(port)


def _check_forwardable(raw: str, port_text: str) -> None:
    """Raise ``HTTPError(400)`` naming the problem unless ``raw`` (a path as sent) can be forwarded as it is."""
    where = f"the path after nanohubmcp/{port_text}"
    rest = _PATH_CHARACTER.sub("", raw)
    if rest.startswith("%"):
        raise web.HTTPError(400, f"{where} cannot be forwarded: it holds a '%' not followed by two hex digits "
                            "(write '%' as %25)")
    if rest:
        escaped = quote(rest[0].encode("latin-1", "replace"))  # (Tornado reads a request line as Latin-1)
        raise web.HTTPError(400, f"{where} cannot be forwarded: it holds {rest[0]!r}, which a URL path holds only "
                            f"percent-encoded ({escaped})")
    control = _CONTROL_ESCAPE.search(raw)
    if control:
        raise web.HTTPError(
            400, f"{where} cannot be forwarded: it holds {control[0]}, an escaped control character no MCP route holds"
        )


def install(serverapp: ServerApp) -> None:
    """Add the routes to ``serverapp``'s web app and write the marker kernels read (removed at exit)."""
    web_app = serverapp.web_app
    base_url = web_app.settings["base_url"]
    runtime_dir = serverapp.runtime_dir
    root = url_path_join(base_url, registry.ROUTE)
    served: dict[int, dict[str, Any]] = {}
    web_app.add_handlers(
        ".*$",
        [
            (root + "/?", InfoHandler),
            (root + r"/(\d{1,5})(/.*)?", ForwardHandler, {"runtime_dir": runtime_dir, "served": served, "root": root}),
        ],
    )
    pid = os.getpid()
    marker = registry.marker_path(runtime_dir, pid)
    os.makedirs(runtime_dir, exist_ok=True)
    # Whether clients need Jupyter's token (never the token itself): the kernel's status then says where it goes.
    provider = getattr(serverapp, "identity_provider", None)
    token = bool(getattr(provider, "token", None) or getattr(serverapp, "token", None))
    registry.write_json(marker, {"version": registry.FORMAT, "pid": pid, "base_url": base_url, "token": token})
    atexit.register(registry.remove_if_owned, marker, "pid", pid)
    serverapp.log.info("nanohubmcp: notebook MCP servers stream at %s/<port>/", root)
