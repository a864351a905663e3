"""How an ``MCPServer`` is served: its :class:`Serving` collaborator, runners, URLs, the banner.

``MCPServer``'s serving verbs (``run``, ``start``, ``stop``, ``make_app``, ``call``) keep their
signatures and documentation on the facade and hand each call to a :class:`Serving`, which owns
the runner while serving and the public URL it advertises. The transports are imported only
here, and only when serving starts, so building a server imports no Tornado code.

This module names the Jupyter layer once, lazily: :meth:`Serving.run` inside a kernel hands over
to ``nanohubmcp.jupyter.kernel_server``, which serves in the background instead of blocking the
kernel. That module imports nothing of the facade, so the arrow makes no cycle; the layer
contract in ``pyproject.toml`` lists it as its one exception.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import os
import sys
from collections.abc import Iterable
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol

from .errors import ConfigurationError

if TYPE_CHECKING:
    from .server.core import ServerCore
    from .server.direct import CallResult
    from .server.wire.events import EventBus
    from .transports.runner import Runner

log = logging.getLogger("nanohubmcp")

COMPAT_RUN_OPTIONS = frozenset({"require_session_header", "require_route_headers"})
"""0.4.x ``run()`` keywords accepted (and ignored: sessions and route headers are always checked)."""


DEFAULT_MAX_REQUEST_BYTES = 16 * 1024 * 1024
"""Request body limit in bytes (413 above it)."""

TRANSPORTS = ("http", "stdio")
"""What ``run(transport=...)`` and ``$MCP_TRANSPORT`` accept."""


def resolve_transport(transport: str | None) -> str:
    """``transport``, else ``$MCP_TRANSPORT``, else ``"http"``; ConfigurationError for anything else."""
    chosen = (transport or os.environ.get("MCP_TRANSPORT") or "http").strip().lower()
    if chosen not in TRANSPORTS:
        raise ConfigurationError(
            f"transport must be one of {', '.join(TRANSPORTS)} (run(transport=...) or $MCP_TRANSPORT), got {chosen!r}"
        )
    return chosen


def serve_stdio(server: Servable) -> None:
    """Serve ``server`` over stdio until the client closes stdin (blocking)."""
    from .transports.stdio import serve_stdio as serve

    serve(server)


def make_runner(
    server: Servable,
    host: str,
    port: int | None,
    path_prefix: str,
    public_url: str | None,
    allowed_origins: str | Iterable[str] | None,
    max_request_bytes: int,
    compat: dict[str, Any],
    *,
    token: str | None = None,
) -> Runner:
    """A transports ``Runner`` for ``server`` (nothing is bound yet).

    Logs a warning when ``host`` is not a loopback address and no authorization is configured.

    Raises:
        ConfigurationError: an unknown keyword, or an unusable option (the message says which).
    """
    from .transports.auth import bind_resource
    from .transports.config import TransportConfig
    from .transports.runner import Runner, resolve_port

    unknown = set(compat) - COMPAT_RUN_OPTIONS
    if unknown:
        raise ConfigurationError(f"unknown run() option(s): {', '.join(sorted(unknown))}")
    auth = verifier(server, token)
    config = TransportConfig(
        path_prefix=path_prefix,
        public_url=public_url,
        allowed_origins=allowed_origins,
        max_request_bytes=max_request_bytes,
        auth=auth,
        loopback_bound=is_loopback(host),
    )
    if auth is None and not is_loopback(host):
        log.warning(
            "serving on %s with no authorization: anyone who can reach the port can call every tool; "
            "pass token=... (or set MCP_TOKEN), or auth=..., or bind host='127.0.0.1'",
            host or "all interfaces",
        )
    bind_resource(config, host)  # an unknowable audience fails here, before binding
    return Runner(server, config, host, resolve_port(port))


def check_workers(server: Servable, workers: object) -> None:
    """Refuse ``workers`` that cannot work: not a positive integer, or several processes
    without a shared state store (each would answer the others' sessions with 404).

    Raises:
        ConfigurationError: the message says what to set.
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ConfigurationError(f"workers must be a positive integer, not {workers!r}")
    if workers > 1 and not server.core.state_url.shared:
        raise ConfigurationError(
            f"workers={workers} needs a shared state store, or each process would answer the others' sessions "
            "with 404: pass state_url='redis://HOST:6379/0' to MCPServer (or set NANOHUBMCP_STATE_URL, or "
            "nanohubmcp run --state-url)"
        )


def verifier(server: Servable, token: str | None) -> Any:
    """The verifier serving ``server`` with ``token`` (see ``MCPServer(auth=...)``), or None."""
    from .auth.verifiers import resolve

    return resolve(server.auth, token)


def is_loopback(host: str) -> bool:
    """True for an address only this machine reaches (``127.0.0.0/8``, ``::1``, ``localhost``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def base_url(runner: Runner | None) -> str | None:
    """The base URL clients use while ``runner`` serves: its public URL, else a reachable local one."""
    if runner is None or runner.port is None:
        return None
    if runner.config.public_url:
        return str(runner.config.public_url)
    host = runner.host
    if host in ("0.0.0.0", "", "::"):
        host = "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{runner.port}{runner.config.path_prefix}/"


def loop_running() -> bool:
    """True inside a running asyncio event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def in_kernel() -> bool:
    """True inside a Jupyter kernel (checked without importing IPython when it is not loaded)."""
    if "ipykernel" not in sys.modules:
        return False
    from IPython import get_ipython

    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def banner(server: Servable, host: str, auth: object = None) -> str:
    """The startup text: address, counts, every endpoint's public URL and, with ``auth`` (the
    verifier serving), how clients authenticate. Resources count what ``resources/list`` lists;
    resource templates (``resources/templates/list``) are counted beside them when there are any."""
    base = server.url or ""
    reg = server.core.registry
    lines = [
        f"MCP Server '{server.name}' v{server.version} listening on {host}:{server.port}",
        f"  Tools: {len(reg.tools)}",
        f"  Resources: {len(reg.resources)}" + (f", resource templates: {len(reg.templates)}" if reg.templates else ""),
        f"  Prompts: {len(reg.prompts)}",
        "Endpoints:",
        f"  Streamable HTTP:      {base}mcp",
        f"  SSE transport:        {base}sse",
        f"  OpenAPI schema:       {base}openapi.json",
        f"  MCP discovery:        {base}.well-known/mcp.json",
        f"  Server card:          {base}mcp/server-card",
        f"  Direct tool calls:    {base}tools/<name>",
    ]
    if auth is not None:
        lines += [
            "Authorization: every request sends 'Authorization: Bearer <token>'",
            f"  Resource metadata:    {base}.well-known/oauth-protected-resource",
        ]
    return "\n".join(lines)


def one_line_if_uncaught(exc: BaseException) -> None:
    """Should ``exc`` end the program uncaught, print ``Error: <message>`` instead of a traceback.

    For mistakes of setting, not of code (a port in use): the message says what to do, and the
    traceback would only bury it. Code that catches ``exc`` sees it unchanged.
    """
    previous = sys.excepthook

    def hook(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        if value is exc:
            print(f"Error: {value}", file=sys.stderr)
        else:
            previous(kind, value, tb)

    sys.excepthook = hook


class Servable(Protocol):
    """What serving uses of the server it serves (an ``MCPServer``)."""

    @property
    def core(self) -> ServerCore: ...

    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...

    @property
    def events(self) -> EventBus: ...

    @property
    def auth(self) -> object: ...

    @property
    def url(self) -> str | None: ...

    @property
    def port(self) -> int | None: ...

    @property
    def running(self) -> bool: ...

    @property
    def token(self) -> str | None: ...

    @property
    def state_secret(self) -> str | bytes | None: ...

    def start(
        self,
        host: str = ...,
        port: int | None = ...,
        path_prefix: str = ...,
        *,
        quiet: bool = ...,
        loop: str = ...,
        **options: Any,
    ) -> object: ...

    def stop(self) -> None: ...


class Serving:
    """Serving one server: over HTTP in the foreground or the background, or over stdio.

    The server is passed to each verb (this object keeps no reference to it).

    Attributes:
        public_url: the URL advertised while serving (``run(public_url=...)``), else None.
    """

    def __init__(self) -> None:
        self._runner: Runner | None = None
        self.public_url: str | None = None

    def make_app(
        self,
        server: Servable,
        *,
        path_prefix: str,
        public_url: str | None,
        allowed_origins: str | Iterable[str] | None,
        max_request_bytes: int,
        token: str | None,
    ) -> Any:
        """The ``tornado.web.Application`` serving ``server`` (for the caller's own HTTPServer)."""
        from .transports.config import TransportConfig
        from .transports.routes import make_app

        config = TransportConfig(
            path_prefix=path_prefix,
            public_url=public_url,
            allowed_origins=allowed_origins,
            max_request_bytes=max_request_bytes,
            auth=verifier(server, token),
        )
        return make_app(server, config)

    @property
    def token(self) -> str | None:
        """The static bearer token of the running server, else None."""
        runner = self._runner
        return getattr(runner.config.auth, "token", None) if runner is not None else None

    def run(
        self,
        server: Servable,
        host: str | None,
        port: int | None,
        path_prefix: str,
        *,
        allowed_origins: str | Iterable[str] | None,
        max_request_bytes: int,
        public_url: str | None,
        quiet: bool,
        token: str | None,
        transport: str | None,
        compat: dict[str, Any],
        workers: int = 1,
    ) -> None:
        """``MCPServer.run``: serve until interrupted (stdio, a kernel's background, a running loop, HTTP)."""
        if resolve_transport(transport) == "stdio":
            if in_kernel() or loop_running():
                raise ConfigurationError(
                    "transport='stdio' needs a process of its own (not a notebook kernel "
                    "or a running event loop): run the script from a desktop client"
                )
            self.stop()
            serve_stdio(server)
            return
        if in_kernel():
            from .jupyter.kernel_server import run_in_kernel

            run_in_kernel(
                server,
                host,
                port,
                quiet=quiet,
                path_prefix=path_prefix,
                allowed_origins=allowed_origins,
                max_request_bytes=max_request_bytes,
                public_url=public_url,
                token=token,
                **compat,
            )
            return
        if loop_running():
            self.start(
                server,
                host or "127.0.0.1",
                port,
                path_prefix,
                allowed_origins=allowed_origins,
                max_request_bytes=max_request_bytes,
                public_url=public_url,
                quiet=quiet,
                loop="thread",
                token=token,
                compat=compat,
            )
            return
        host = host or "127.0.0.1"
        check_workers(server, workers)
        self.stop()
        runner = make_runner(
            server, host, port, path_prefix, public_url, allowed_origins, max_request_bytes, compat, token=token
        )
        self._runner = runner
        self.public_url = public_url

        def ready() -> None:
            print(banner(server, host, runner.config.auth), flush=True)

        try:
            runner.serve_forever(workers, on_ready=None if quiet else ready)
        except ConfigurationError as exc:  # a busy port, say: one line when nobody catches it
            one_line_if_uncaught(exc)
            raise
        finally:
            self._runner = None

    def start(
        self,
        server: Servable,
        host: str,
        port: int | None,
        path_prefix: str,
        *,
        allowed_origins: str | Iterable[str] | None,
        max_request_bytes: int,
        public_url: str | None,
        quiet: bool,
        loop: str,
        token: str | None,
        compat: dict[str, Any],
    ) -> None:
        """``MCPServer.start``: serve in the background (``loop`` "thread" or "current"); returns once listening."""
        self.stop()
        runner = make_runner(
            server, host, port, path_prefix, public_url, allowed_origins, max_request_bytes, compat, token=token
        )
        self.public_url = public_url
        if loop == "thread":
            runner.start_thread()
        elif loop == "current":
            runner.start_on_loop()
        else:
            raise ConfigurationError('loop must be "thread" or "current"')
        self._runner = runner
        if not quiet:
            print(banner(server, host, runner.config.auth), flush=True)

    def stop(self) -> None:
        """Stop serving (if serving) and free the port; safe to call twice and from any thread."""
        runner, self._runner = self._runner, None
        if runner is not None:
            runner.stop()

    def call(self, core: ServerCore, name: str, arguments: dict[str, Any] | None, *,
             server: object = None) -> CallResult:
        """``MCPServer.call``: tool ``name`` through the running server's call path, from a thread."""
        from .server import direct  # calls from the serving program: not needed to start serving

        loop = self._runner.loop if self._runner is not None else None
        return direct.call_from_thread(core, loop, name, arguments, server=server)

    async def call_async(self, core: ServerCore, name: str, arguments: dict[str, Any] | None, *,
                         server: object = None) -> CallResult:
        """:meth:`call` for a coroutine: on the server's loop when it runs elsewhere."""
        from .server import direct

        loop = self._runner.loop if self._runner is not None else None
        if loop is None or asyncio.get_running_loop() is loop:
            return await direct.call_tool(core, name, arguments, server=server)
        return await asyncio.wrap_future(
            asyncio.run_coroutine_threadsafe(direct.call_tool(core, name, arguments, server=server), loop)
        )

    @property
    def running(self) -> bool:
        """True while serving."""
        return self._runner is not None and self._runner.running

    @property
    def port(self) -> int | None:
        """The bound port while serving."""
        return self._runner.port if self._runner is not None else None

    @property
    def url(self) -> str | None:
        """The base URL clients use (the public URL when set), with a trailing slash."""
        return base_url(self._runner)
