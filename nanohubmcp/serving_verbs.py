"""``run``/``start``/``stop``/``make_app``/``call``: the verbs of an ``MCPServer`` that serve it.

:class:`ServingVerbs` is a base class of :class:`nanohubmcp.MCPServer` (the facade keeps the
registration decorators); it holds the runner while serving. The transports are imported only
when serving starts (``nanohubmcp.serving``), so building a server imports no Tornado code.

This module names the Jupyter layer once, lazily: :meth:`ServingVerbs.run` inside a kernel hands
over to ``nanohubmcp.jupyter.kernel_server``, which serves in the background instead of blocking
the kernel. That module imports nothing of the facade, so the arrow makes no cycle; the layer
contract in ``pyproject.toml`` lists it as its one exception.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, TypeVar

from . import serving
from .errors import ConfigurationError
from .server import direct
from .server.direct import CallResult

if TYPE_CHECKING:
    from .server.core import ServerCore
    from .transports.runner import Runner

DEFAULT_MAX_REQUEST_BYTES = 16 * 1024 * 1024
"""Request body limit in bytes (413 above it)."""

_Self = TypeVar("_Self", bound="ServingVerbs")


class ServingVerbs:
    """Serving an ``MCPServer``: over HTTP in the foreground or the background, or over stdio.

    Attributes:
        public_url: the URL advertised while serving (``run(public_url=...)``), else None.
    """

    core: ServerCore
    auth: Any
    public_url: str | None
    _runner: Runner | None

    def make_app(self, *, path_prefix: str = "", public_url: str | None = None, allowed_origins: Any = None,
                 max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES, token: str | None = None) -> Any:
        """Return the ``tornado.web.Application`` serving this server (for your own HTTPServer)."""
        from .transports.app import make_app
        from .transports.config import TransportConfig

        config = TransportConfig(path_prefix=path_prefix, public_url=public_url, allowed_origins=allowed_origins,
                                 max_request_bytes=max_request_bytes, auth=serving.verifier(self, token))
        return make_app(self, config)

    def _runner_for(self, host: str, port: int | None, path_prefix: str, public_url: str | None,
                    allowed_origins: Any, max_request_bytes: int, compat: dict[str, Any],
                    token: str | None = None) -> Runner:
        return serving.make_runner(self, host, port, path_prefix, public_url, allowed_origins,
                                   max_request_bytes, compat, token=token)

    @property
    def token(self) -> str | None:
        """The static bearer token clients must send while serving with one (``run(token=...)``,
        ``MCP_TOKEN``), else None."""
        runner = self._runner
        return getattr(runner.config.auth, "token", None) if runner is not None else None

    def run(self, host: str | None = None, port: int | None = None, path_prefix: str = "", *,
            allowed_origins: Any = None, max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
            public_url: str | None = None, quiet: bool = False, token: str | None = None,
            transport: str | None = None,
            **compat: Any) -> None:
        """Serve until interrupted (Ctrl-C / SIGTERM), printing the endpoints first.

        With ``transport="stdio"`` (or ``$MCP_TRANSPORT=stdio``) it serves one client on
        stdin/stdout instead, as desktop clients launch servers, until the client closes stdin;
        stdout then carries only protocol messages (``print()`` goes to stderr) and the HTTP
        options are ignored.

        In a Jupyter kernel it serves in the background and returns instead of blocking the
        kernel (no "event loop is already running"): on 127.0.0.1 unless ``host`` is given,
        and re-running the cell replaces the earlier ``run()`` server of the same name (or on the
        same port), so the old one stops instead of lingering on its port. Inside any
        other running event loop it behaves like :meth:`start`.

        Args:
            host: interface to bind; default "127.0.0.1" (this machine only). Binding another
                interface with no authorization configured logs a warning.
            port: TCP port; default ``$MCP_PORT`` or 8000; 0 = any free port.
            path_prefix: path to serve under (behind a proxy that does not strip it).
            allowed_origins: None (loopback plus the public URL's origin), a list, or "*".
            max_request_bytes: request body limit (413 above it).
            public_url: the URL to advertise (the weber URL behind nanoHUB's proxy).
            quiet: do not print the endpoint banner.
            token: the static bearer token every HTTP request must carry
                (``Authorization: Bearer <token>``); overrides ``auth``; ``""`` turns
                authorization off. Default: ``$MCP_TOKEN`` when ``auth`` is None.
            transport: ``"http"`` (default) or ``"stdio"``; default ``$MCP_TRANSPORT``.
        Raises:
            ConfigurationError: the port is busy or invalid, or the transport unknown (the
                message says which).
        """
        if serving.resolve_transport(transport) == "stdio":
            if serving.in_kernel() or serving.loop_running():
                raise ConfigurationError("transport='stdio' needs a process of its own (not a notebook kernel "
                                         "or a running event loop): run the script from a desktop client")
            self.stop()
            serving.serve_stdio(self)
            return
        options = {"path_prefix": path_prefix, "allowed_origins": allowed_origins,
                   "max_request_bytes": max_request_bytes, "public_url": public_url, "token": token, **compat}
        if serving.in_kernel():
            from .jupyter.kernel_server import run_in_kernel

            run_in_kernel(self, host, port, quiet=quiet, **options)
            return
        if serving.loop_running():
            self.start(host=host or "127.0.0.1", port=port, quiet=quiet, **options)
            return
        host = host or "127.0.0.1"
        self.stop()
        runner = self._runner_for(host, port, path_prefix, public_url, allowed_origins, max_request_bytes, compat,
                                  token)
        self._runner = runner
        self.public_url = public_url
        if not quiet:
            runner.on_ready = lambda: print(serving.banner(self, host, runner.config.auth), flush=True)
        try:
            runner.serve_forever()
        except ConfigurationError as exc:  # a busy port, say: one line when nobody catches it
            serving.one_line_if_uncaught(exc)
            raise
        finally:
            self._runner = None

    def start(self: _Self, host: str = "127.0.0.1", port: int | None = None, path_prefix: str = "", *,
              allowed_origins: Any = None, max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
              public_url: str | None = None, quiet: bool = True, loop: str = "thread", token: str | None = None,
              **compat: Any) -> _Self:
        """Serve in the background and return once listening (takes the options of :meth:`run`).

        Args:
            loop: ``"thread"`` (an event loop of its own in a daemon thread) or ``"current"``
                (the running loop of the calling thread, e.g. a Jupyter kernel's).
        Returns:
            self, so ``server.start().url`` works.
        """
        self.stop()
        runner = self._runner_for(host, port, path_prefix, public_url, allowed_origins, max_request_bytes, compat,
                                  token)
        self.public_url = public_url
        if loop == "thread":
            runner.start_thread()
        elif loop == "current":
            runner.start_on_loop()
        else:
            raise ConfigurationError('loop must be "thread" or "current"')
        self._runner = runner
        if not quiet:
            print(serving.banner(self, host, runner.config.auth), flush=True)
        return self

    def stop(self) -> None:
        """Stop serving (if serving) and free the port. Safe to call twice and from any thread."""
        runner, self._runner = self._runner, None
        if runner is not None:
            runner.stop()

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> CallResult:
        """Call tool ``name`` through the running server, as a client would, and wait.

        The call takes the path of a client's ``tools/call`` (lookup, argument validation,
        the tool on its thread, result shaping). In a notebook the result shows as a client
        would show it (images as images).

        Args:
            name: the tool's name.
            arguments: its arguments, as JSON values.
        Returns:
            The ``CallToolResult`` (a dict; ``.text``, ``.structured``, ``.is_error``).
        Raises:
            ProtocolError: the JSON-RPC error a client would get (-32602 for an unknown tool).
            ConfigurationError: the server is not running, or this thread runs its event loop
                (a "kernel" mode notebook): use ``await server.call_async(...)`` there.
        """
        loop = self._runner.loop if self._runner is not None else None
        return direct.call_from_thread(self.core, loop, name, arguments)

    async def call_async(self, name: str, arguments: dict[str, Any] | None = None) -> CallResult:
        """:meth:`call` for a coroutine (or a notebook cell's top-level ``await``)."""
        loop = self._runner.loop if self._runner is not None else None
        if loop is None or asyncio.get_running_loop() is loop:
            return await direct.call_tool(self.core, name, arguments)
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(
            direct.call_tool(self.core, name, arguments), loop))

    @property
    def running(self) -> bool:
        """True while the server is serving."""
        return self._runner is not None and self._runner.running

    @property
    def port(self) -> int | None:
        """The bound port while serving (useful with ``port=0``)."""
        return self._runner.port if self._runner is not None else None

    @property
    def url(self) -> str | None:
        """The base URL clients use (the public URL when set), with a trailing slash."""
        return serving.base_url(self._runner)
