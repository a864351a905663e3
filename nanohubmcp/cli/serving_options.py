"""The serving options of the ``nanohubmcp`` subcommands that serve (``run``, ``sim2l``, ``rappture``,
``hub-tools``), defined once: what each means, how it is checked, how the server is served with it.

A serving subcommand adds them with :func:`serving_arguments`, checks them with :func:`prepare_serving`
before it reads or builds anything (a bad value is a usage error, exit status 2, in the same words for
every subcommand), builds its server, and serves it with :func:`serve`. ``--workers N`` forks N
processes from the one that built the server, each serving the server it inherits, as ``run --workers``
does for an app file; a worker started again after a crash is forked from that process too, so the
tools are never read again. What only ``run`` does (importing the app, its ``run()`` keywords left out)
stays in :mod:`.serve`.

Only ``argparse`` is imported with this module; what the checks and the serve need is imported when
they run, so that ``nanohubmcp --help`` stays quick.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

from ..auth.token_option import add_token_options
from ..errors import ConfigurationError, UsageError
from ..processes.exit_grace import exit_grace_option
from ..transports.limit_option import (
    check_limit_options,
    limit_arguments,
    limit_keywords,
    most_workers,
    worker_count,
    workers_take,
)
from ..transports.proxy_option import FromEnvironment, proxy_arguments
from .script_options import PORT_VARIABLE, port_number

if TYPE_CHECKING:
    from ..facade import MCPServer

__all__ = ["absolute", "prepare_serving", "refuse_unshared_workers", "serve", "serving_arguments"]


def serving_arguments(command: argparse.ArgumentParser) -> None:
    """Add every serving option to a subcommand: ``--transport``, ``--host``, ``--port``,
    ``--token-file``/``--token``, the proxy options (``--public-url``, ``--path-prefix``,
    ``--allowed-origins``, ``--proxy-headers``), ``--state-dir``, ``--workers``, ``--state-url``, the five
    byte limits (``--max-request-bytes`` ...), ``--access-log`` and ``--exit-grace``; each left out is None
    (``--workers`` 1, ``--access-log`` False): ``run()``'s default, or its environment variable, holds.
    """
    command.add_argument("--transport", choices=["http", "stdio"], default=None,
                         help="http (default, or $MCP_TRANSPORT) or stdio")
    command.add_argument("--host", default=None,
                         help="HTTP: interface to bind (default 127.0.0.1, this machine only)")
    environ = os.environ.get(PORT_VARIABLE, "").strip()  # checked as --port is, before anything is read
    command.add_argument("--port", type=port_number,
                         default=FromEnvironment(environ, PORT_VARIABLE) if environ else None,
                         help="HTTP: TCP port, 0-65535 (0: any free port; default $MCP_PORT or 8000)")
    add_token_options(command, "HTTP: the bearer token every request must carry")
    proxy_arguments(command)
    command.add_argument("--state-dir", default=None, metavar="DIR",
                         help="where jobs, the result cache and provenance records are kept (default: "
                         "$NANOHUBMCP_STATE_DIR, else one per server name; hub-tools: one named hub-tools); run: "
                         "it wins over a state_dir= in the app file")
    command.add_argument("--workers", type=worker_count, default=1, metavar="N",
                         help="HTTP: N processes serving the one port, each forked from the one that built the "
                         "server (needs --state-url redis://… or $NANOHUBMCP_STATE_URL; run: or a state_url= in "
                         f"the app; default 1; {workers_take(most_workers())})")
    command.add_argument("--state-url", default=None, metavar="URL",
                         help="where sessions and streams shared by the processes live, e.g. redis://127.0.0.1:6379/0 "
                         "(default: $NANOHUBMCP_STATE_URL, else this process's memory; run: given, it wins over a "
                         "state_url= in the app)")
    limit_arguments(command)
    command.add_argument("--access-log", action="store_true",
                         help="HTTP: log every request on stderr with the serving process's id (off by default: a "
                         "line per request costs ~6%% of a small call's CPU)")
    command.add_argument("--exit-grace", type=exit_grace_option, default=None, metavar="SECONDS",
                         help="the longest the process takes to exit once stopped (SIGTERM, Ctrl-C), whatever still "
                         "runs; running calls have it less 2 s to answer: 2-86400 (default 10; with --workers a "
                         "worker still running 5 s past it is killed)")


def prepare_serving(args: argparse.Namespace, *, app: bool = False) -> str:
    """Check the serving options and set up what must hold before the server is built (or, ``app``, the
    app file imported); returns the transport, ``"http"`` or ``"stdio"``.

    It refuses a byte limit ``run()`` would refuse, ``--workers`` above 1 over stdio, a malformed
    ``$NANOHUBMCP_REGISTRY_NAME`` (HTTP), a ``--state-dir`` naming a file, a malformed ``--state-url`` and,
    unless ``app`` (an app file may name a shared store itself, known once it is imported), ``--workers``
    above 1 with no shared state URL (:func:`refuse_unshared_workers`). ``--state-dir`` and ``--state-url`` go into
    ``$NANOHUBMCP_STATE_DIR`` and ``$NANOHUBMCP_STATE_URL``, which every ``MCPServer(...)`` built without
    ``state_dir=``/``state_url=`` reads; a password in ``--state-url`` is warned about on stderr;
    ``--access-log`` turns the request log on; over stdio, stdout is kept for the protocol (whatever a tool
    prints goes to stderr).

    Raises:
        UsageError: the message names the option (the command answers with its usage, exit status 2) or the
            environment variable (the message alone, exit status 2).
    """
    check_limit_options(args)
    if args.state_dir is not None:
        from ..server.options import check_state_dir
        from ..server.wire.state_dir import ENV_STATE_DIR

        try:  # a file there kept the cached results, records and jobs in memory, lost at the stop
            check_state_dir(args.state_dir, "--state-dir")
        except ConfigurationError as exc:
            raise UsageError(str(exc)) from None
        os.environ[ENV_STATE_DIR] = absolute(args.state_dir)
    from ..serving import resolve_transport
    from ..serving.runners import refuse_stdio_workers

    transport = resolve_transport(args.transport)
    try:  # (it served one process, saying nothing): run()'s rule, in the options' words
        refuse_stdio_workers(args.workers, args.transport, command_line=True)
    except ConfigurationError as exc:
        raise UsageError(str(exc)) from None
    if transport == "stdio":
        from ..transports.lines import protect_stdout

        protect_stdout()  # whatever the app, papermill or a notebook prints must not reach the client
    else:  # the card's and catalogs' name: refused before the server is built
        from ..transports.registry_name import NAME_VARIABLE, check_name_variable

        try:
            check_name_variable()
        except ConfigurationError as exc:
            raise _variable_error(str(exc), NAME_VARIABLE) from None
    if args.state_url is not None:
        _take_state_url(args.state_url)
    else:
        _check_state_variable()
    if args.workers > 1 and not app:
        from ..state import resolve

        # --state-url, else $NANOHUBMCP_STATE_URL: nothing else names one, so it is refused before the tools are read
        refuse_unshared_workers(args.workers, shared=resolve(None).shared, app=False)
    if args.access_log:
        from ..processes.workers import log_requests

        log_requests()
    return transport


def _take_state_url(url: str) -> None:
    """``--state-url``, checked and put where every ``MCPServer(...)`` built without ``state_url=`` reads it
    (an app file's own ``state_url=`` is replaced by ``run``: :func:`~nanohubmcp.nanohub.child.load_app`)."""
    from ..state import ENV_VAR, parse, redact

    try:
        parse(url)  # a bad URL fails here, before the server is built
    except ConfigurationError as exc:
        raise UsageError(f"--state-url: {exc}") from None
    if redact(url) != url:  # a password (or token) in the command line
        print(f"warning: --state-url carries a password, visible to other users of this machine (ps, "
              f"/proc/<pid>/cmdline); set {ENV_VAR} in the environment instead", file=sys.stderr)
    os.environ[ENV_VAR] = url


def _check_state_variable() -> None:
    """``$NANOHUBMCP_STATE_URL`` checked as ``--state-url`` is, before anything is read or built (a bad one
    failed once the server was built: after papermill loaded, the app was imported, ``/apps`` was read)."""
    from ..state import ENV_VAR, parse

    url = os.environ.get(ENV_VAR)
    if url is not None:  # (as the server reads it: state.resolve)
        try:
            parse(url)
        except ConfigurationError as exc:
            raise _variable_error(f"${ENV_VAR}: {exc}", ENV_VAR) from None


def _variable_error(message: str, variable: str) -> UsageError:
    """A usage error of the environment ``variable``: the command says it without its usage (the arguments are
    not what is wrong), exit status 2."""
    error = UsageError(message)
    error.variable = variable
    return error


def refuse_unshared_workers(workers: int, *, shared: bool, app: bool) -> None:
    """Refuse ``--workers`` above 1 when the server's state store is not ``shared`` (each process would answer
    the others' sessions with 404); ``app``: the message names an app file's ``state_url=`` too.

    Raises:
        UsageError: the message says what to give.
    """
    if workers > 1 and not shared:
        also = ", or state_url= in the app" if app else ""
        raise UsageError(f"--workers {workers} needs a shared state store, or each process would answer the others' "
                         f"sessions with 404: give --state-url redis://HOST:6379/0 (or set NANOHUBMCP_STATE_URL"
                         f"{also})")


def serve(server: MCPServer, args: argparse.Namespace, transport: str) -> int:
    """Serve ``server`` with the serving options of ``args`` (checked by :func:`prepare_serving`; ``run``
    checks ``--workers`` against its app's state store itself: :func:`refuse_unshared_workers`) until it is
    stopped; returns the exit status, 0. With ``--workers N`` the processes are forked from this one, each
    serving ``server`` as built here. The command's process is the server's from now on: ``nanohubmcp``
    ends it within the exit grace (:func:`~nanohubmcp.processes.process_end.end_served_process`).

    Raises:
        ConfigurationError: the port is in use (the message says ``--port 0``), the state store does not
            answer, no token where the server requires one.
    """
    from ..processes.ports import PortInUse
    from ..processes.process_end import served

    served()
    try:
        server.run(transport=transport, **_run_keywords(args))
    except PortInUse as exc:  # said in the command line's words (--port 0, not port=0)
        raise exc.saying("--port 0") from None
    return 0


def refuse_busy_port(args: argparse.Namespace, transport: str) -> None:
    """Refuse ``--port`` now when another process holds it (a bind test: the socket is closed at once), for a
    command whose server takes seconds to build (``sim2l`` loads papermill and simtool); serving binds again.
    Nothing is tested over stdio or for ``--port 0``.

    Raises:
        ConfigurationError: the port is in use (:class:`~nanohubmcp.processes.ports.PortInUse`, saying
            ``--port 0``), or cannot be listened on (the message names host and port).
    """
    if transport != "http" or not args.port:
        return
    from ..processes.ports import PortInUse, bind

    try:
        sockets = bind(args.host or "127.0.0.1", int(args.port))
    except PortInUse as exc:
        raise exc.saying("--port 0") from None
    for sock in sockets:
        sock.close()


def _run_keywords(args: argparse.Namespace) -> dict[str, Any]:
    """The serving options of ``args`` as ``MCPServer.run()``'s keyword arguments, but ``transport``
    (:func:`prepare_serving` returns it); those left out are ``run()``'s defaults."""
    return {"host": args.host, "port": args.port, "token": args.token, "workers": args.workers,
            "path_prefix": args.path_prefix or "", "public_url": args.public_url,
            "allowed_origins": args.allowed_origins, "proxy_headers": args.proxy_headers, **limit_keywords(args),
            **({} if args.exit_grace is None else {"exit_grace": args.exit_grace})}  # (else run()'s, 10 s)


def absolute(path: str) -> str:
    """``path`` with ``~`` expanded, made absolute against the working directory now."""
    return os.path.abspath(os.path.expanduser(path))
