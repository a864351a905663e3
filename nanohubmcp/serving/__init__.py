"""How an ``MCPServer`` is served: its :class:`Serving` collaborator, which owns the runner while serving.

``MCPServer``'s serving verbs (``run``, ``start``, ``stop``, ``make_app``, ``call``) keep their
signatures and documentation on the facade and hand each call to a :class:`Serving`, which owns
the runner while serving and the public URL it advertises. The transports are imported only by
this package, and only when serving starts, so building a server imports no Tornado code.

- ``serving.runner``: the ``Runner``, the one way to start and stop serving over HTTP (imported when serving starts);
- ``serving.runners``: ``run()``'s options checked and turned into a ``Runner``;
- ``serving.banner``: what the user sees (the startup banner, the base URL, a one-line error);
- ``serving.servable``: :class:`~nanohubmcp.serving.servable.Servable`, what serving uses of the server.

This package names the Jupyter layer once, lazily: :meth:`Serving.run` inside a kernel hands over
to ``nanohubmcp.jupyter.kernel_server``, which serves in the background instead of blocking the
kernel. That module imports nothing of the facade, so the arrow makes no cycle; the layer
contract in ``pyproject.toml`` lists it as its one exception.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..errors import ConfigurationError
from ..protocol.seconds import bound_or_default
from ..protocol.whole_numbers import whole_number
from ..server.app_import import serving_skipped
from .banner import banner, base_url, one_line_if_uncaught
from .runners import (
    DEFAULT_MAX_BUFFERED_BYTES,
    check_workers,
    make_runner,
    refuse_stdio_workers,
    resolve_transport,
    token_required,
    verifier,
    warn_about_config,
    warn_about_views,
)

if TYPE_CHECKING:
    import tornado.web

    from ..server.core import ServerCore
    from ..server.direct import CallResult
    from .runner import Runner
    from .servable import Servable

__all__ = [
    "DEFAULT_EXIT_GRACE_SECONDS", "DEFAULT_MAX_BUFFERED_BYTES", "DEFAULT_MAX_REQUEST_BYTES", "DEFAULT_MAX_UNSENT_BYTES",
    "Serving", "resolve_transport",
]

DEFAULT_MAX_REQUEST_BYTES = 16 * 1024 * 1024
"""Request body limit in bytes (413 above it)."""
DEFAULT_MAX_UNSENT_BYTES = 256 * 1024 * 1024
"""Most response bytes held for clients that have not read them (``transports.unsent`` has the
same figure; this one keeps the transports unimported until serving starts)."""
DEFAULT_EXIT_GRACE_SECONDS = 10.0
"""A stopping process's exit grace when none is given, in seconds (``processes.exit_grace`` has the same figure,
and checks a given one when serving starts; this one keeps the transports unimported while a server is built)."""


def serve_stdio(server: Servable, token: str | None = None, grace: float = DEFAULT_EXIT_GRACE_SECONDS) -> None:
    """Serve ``server`` over stdio until the client closes stdin (blocking). With ``auth=``
    configured (``token`` overriding it as over HTTP; ``""`` turns it off) the caller is the one
    whose token ``$MCP_TOKEN`` holds (``transports.stdio_auth``); without, requests have no principal. The
    process exits within ``grace`` seconds of its stop (the exit grace, checked by the caller).

    Raises:
        ConfigurationError: ``auth=`` is configured and ``$MCP_TOKEN`` is unset or refused.
    """
    from .stdio_process import serve_stdio as serve

    # Without auth= nothing is checked: $MCP_TOKEN alone (HTTP's default static token) would be
    # both the server's token and the caller's here, proving nothing.
    serve(server, verifier(server, token) if token_required(server, "stdio") else None, grace)


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


class Serving:
    """Serving one server: over HTTP in the foreground or the background, or over stdio.

    The server is passed to each verb (this object keeps no reference to it).
    """

    def __init__(self) -> None:
        self._runner: Runner | None = None
        self._ending: Runner | None = None
        """A stopped runner whose thread was still draining when its stop returned: a later stop waits for it."""

    def make_app(
        self,
        server: Servable,
        *,
        path_prefix: str,
        public_url: str | None,
        allowed_origins: str | Iterable[str] | None,
        max_request_bytes: int,
        max_buffered_bytes: int = DEFAULT_MAX_BUFFERED_BYTES,
        max_unsent_bytes: int,
        max_buffered_bytes_per_principal: int | None = None,
        max_unsent_bytes_per_principal: int | None = None,
        token: str | None,
    ) -> tornado.web.Application:
        """The ``tornado.web.Application`` serving ``server`` (for the caller's own HTTPServer)."""
        from ..transports.config import TransportConfig
        from ..transports.routes import make_app

        config = TransportConfig(
            path_prefix=path_prefix,
            public_url=public_url,
            allowed_origins=allowed_origins,
            max_request_bytes=max_request_bytes,
            max_buffered_bytes=max_buffered_bytes,
            max_unsent_bytes=max_unsent_bytes,
            max_buffered_bytes_per_principal=max_buffered_bytes_per_principal,
            max_unsent_bytes_per_principal=max_unsent_bytes_per_principal,
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
        max_buffered_bytes: int = DEFAULT_MAX_BUFFERED_BYTES,
        max_unsent_bytes: int,
        max_buffered_bytes_per_principal: int | None = None,
        max_unsent_bytes_per_principal: int | None = None,
        public_url: str | None,
        quiet: bool,
        token: str | None,
        transport: str | None,
        compat: dict[str, Any],
        workers: int = 1,
        proxy_headers: bool | None = None,
        exit_grace: float = DEFAULT_EXIT_GRACE_SECONDS,
    ) -> None:
        """``MCPServer.run``: serve until interrupted (stdio, a kernel's background, a running loop, HTTP);
        nothing while ``nanohubmcp`` imports the app file calling it (it serves the server itself).

        A Ctrl-C taken while a blocking serve starts, before the serve takes SIGINT itself (importing the
        transports, binding the port, preparing the state store), ends it as one taken while serving does: it
        returns, saying nothing, as ``nanohubmcp run`` does. (A Ctrl-C in the script's own code before ``run()``
        is the script's: a ``KeyboardInterrupt``.)"""
        if serving_skipped("run"):
            return
        from ..processes.exit_grace import checked_exit_grace

        try:
            grace = checked_exit_grace(exit_grace)
        except ConfigurationError as exc:  # one line and exit status 2 when nobody catches it
            one_line_if_uncaught(exc, status=2)
            raise
        if resolve_transport(transport) == "stdio":
            try:
                refuse_stdio_workers(workers, transport)  # (it served one process, saying nothing)
            except ConfigurationError as exc:  # one line and exit status 2 when nobody catches it
                one_line_if_uncaught(exc, status=2)
                raise
            if in_kernel() or loop_running():
                raise ConfigurationError(
                    "transport='stdio' needs a process of its own (not a notebook kernel "
                    "or a running event loop): run the script from a desktop client"
                )
            self.stop()
            warn_about_views(server.core)
            from ..processes.log_lines import unconfigured_logs

            try:
                with unconfigured_logs():  # (a client's text in the log: its escapes written as such)
                    serve_stdio(server, token, grace)
            except ConfigurationError as exc:  # no token in $MCP_TOKEN, say: one line when nobody catches it
                one_line_if_uncaught(exc)
                raise
            except KeyboardInterrupt:  # Ctrl-C while starting: returns, as one while serving
                return
            return
        if in_kernel():
            from ..jupyter.kernel_server import run_in_kernel

            run_in_kernel(
                server,
                host,
                port,
                quiet=quiet,
                path_prefix=path_prefix,
                allowed_origins=allowed_origins,
                max_request_bytes=max_request_bytes,
                max_buffered_bytes=max_buffered_bytes,
                max_unsent_bytes=max_unsent_bytes,
                max_buffered_bytes_per_principal=max_buffered_bytes_per_principal,
                max_unsent_bytes_per_principal=max_unsent_bytes_per_principal,
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
                max_buffered_bytes=max_buffered_bytes,
                max_unsent_bytes=max_unsent_bytes,
                max_buffered_bytes_per_principal=max_buffered_bytes_per_principal,
                max_unsent_bytes_per_principal=max_unsent_bytes_per_principal,
                public_url=public_url,
                quiet=quiet,
                loop="thread",
                token=token,
                compat=compat,
                proxy_headers=proxy_headers,
            )
            return
        host = host or "127.0.0.1"
        forks = (whole_number(workers) or 0) > 1  # (4.0 too: check_workers takes any whole number)
        if forks:  # a stop from now on ends the whole server, whenever it comes (processes.supervisor)
            from ..processes.supervisor import hold_stop_signals

            hold_stop_signals()
        from ..processes.frozen_heap import pause_collection, resume_collection

        pause_collection()  # until serving freezes the start-up (frozen_heap): a pass now walks what it freezes
        try:
            try:
                workers = check_workers(server, workers)
                self.stop()
                runner = make_runner(
                    server, host, port, path_prefix, public_url, allowed_origins, max_request_bytes, compat,
                    token=token, max_buffered_bytes=max_buffered_bytes, max_unsent_bytes=max_unsent_bytes,
                    max_buffered_bytes_per_principal=max_buffered_bytes_per_principal,
                    max_unsent_bytes_per_principal=max_unsent_bytes_per_principal,
                    proxy_headers=proxy_headers,
                )
            except ConfigurationError as exc:  # no token where one is required, one no client can send, say:
                # one line and exit status 2 when nobody catches it
                one_line_if_uncaught(exc, status=2)
                raise
            self._runner = runner

            def ready() -> None:
                warn_about_config(runner)
                if not quiet:
                    print(banner(server, host, runner.config.auth, processes=workers), flush=True)

            from ..processes.log_lines import unconfigured_logs

            try:
                with unconfigured_logs():  # (a client's text in the log: its escapes written as such)
                    runner.serve_forever(workers, on_ready=ready, grace=grace)
            except ConfigurationError as exc:  # a busy port, say: one line when nobody catches it
                one_line_if_uncaught(exc)
                raise
            finally:
                self._runner = None
        except KeyboardInterrupt:  # Ctrl-C while starting: returns, as one while serving
            return
        finally:
            resume_collection()  # (a serve that ended before its freeze: by an error, say)
            if forks:
                from ..processes.supervisor import release_stop_signals

                release_stop_signals()  # (nothing once forked)

    def start(
        self,
        server: Servable,
        host: str,
        port: int | None,
        path_prefix: str,
        *,
        allowed_origins: str | Iterable[str] | None,
        max_request_bytes: int,
        max_buffered_bytes: int = DEFAULT_MAX_BUFFERED_BYTES,
        max_unsent_bytes: int,
        max_buffered_bytes_per_principal: int | None = None,
        max_unsent_bytes_per_principal: int | None = None,
        public_url: str | None,
        quiet: bool,
        loop: str,
        token: str | None,
        compat: dict[str, Any],
        proxy_headers: bool | None = None,
    ) -> None:
        """``MCPServer.start``: serve in the background (``loop`` "thread" or "current"); returns once listening.
        Nothing while ``nanohubmcp`` imports the app file calling it (it serves the server itself)."""
        if serving_skipped("start"):
            return
        self.stop()
        runner = make_runner(
            server, host, port, path_prefix, public_url, allowed_origins, max_request_bytes, compat, token=token,
            max_buffered_bytes=max_buffered_bytes,
            max_unsent_bytes=max_unsent_bytes,
            max_buffered_bytes_per_principal=max_buffered_bytes_per_principal,
            max_unsent_bytes_per_principal=max_unsent_bytes_per_principal,
            proxy_headers=proxy_headers,
        )
        if loop == "thread":
            runner.start_thread()
        elif loop == "current":
            runner.start_on_loop()
        else:
            raise ConfigurationError('loop must be "thread" or "current"')
        self._runner = runner
        warn_about_config(runner)
        if not quiet:
            print(banner(server, host, runner.config.auth), flush=True)

    def stop(self, *, within: float | None = None) -> None:
        """Stop serving (if serving) and free the port; safe to call twice and from any thread (``within``: as
        ``MCPServer.stop``)."""
        within = bound_or_default(within, "within", "the stop's own steps (2 s each)")
        runner, self._runner = self._runner, None
        if runner is None:
            runner, self._ending = self._ending, None
        if runner is not None:
            runner.stop(within=within)
            if runner.ending:
                self._ending = runner

    def call(self, core: ServerCore, name: str, arguments: dict[str, Any] | None, *,
             server: object = None) -> CallResult:
        """``MCPServer.call``: tool ``name`` through the running server's call path, from a thread."""
        from ..server import direct  # calls from the serving program: not needed to start serving

        loop = self._runner.loop if self._runner is not None else None
        return direct.call_from_thread(core, loop, name, arguments, server=server)

    async def call_async(self, core: ServerCore, name: str, arguments: dict[str, Any] | None, *,
                         server: object = None) -> CallResult:
        """:meth:`call` for a coroutine: on the server's loop when it runs elsewhere."""
        from ..server import direct

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
    def public_url(self) -> str | None:
        """The public URL advertised while serving, as the banner and every document write it (``run(public_url=
        " https://h.example/me")`` → ``"https://h.example/me/"``: checked and normalised once, by
        :func:`~nanohubmcp.transports.public_url.checked_public_url`); None when none was given or not serving."""
        return self._runner.config.public_url if self._runner is not None else None

    @property
    def url(self) -> str | None:
        """The base URL clients use (the public URL when set), with a trailing slash."""
        return base_url(self._runner)
