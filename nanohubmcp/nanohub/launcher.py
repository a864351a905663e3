"""``start_mcp``: run an MCP app file on nanoHUB (or locally) and supervise it.

Usage::

    start_mcp --app FILE [--host HOST] [--port PORT] [--token-file PATH] [--python-env NAME] [--debug]
              [--public-url URL] [--path-prefix PATH] [--allowed-origins ORIGINS]
    start_mcp --version
    start_mcp --rappture TOOL.xml [--rappture ...] [--sim2l NOTEBOOK ...] [the same options]
              [--weber-port 8000] [--startup-timeout 120]

What it does, in order:

1. checks the app file exists; with ``--python-env`` finds that conda environment's Python;
2. detects the set-up (:func:`~nanohubmcp.nanohub.proxy.detect_proxy`: ``$SESSION``, ``$SESSIONDIR``
   and the ``hub_url``, ``filexfer_port`` and ``filexfer_cookie`` of ``$SESSIONDIR/resources``) and says
   it in one line on stderr (a session it cannot use: what is missing, and that it serves as off the
   hub); in a nanoHUB tool session looks for wrwroxy with ``use`` (:mod:`~nanohubmcp.nanohub.wrwroxy`);
   ``--public-url`` and ``--path-prefix`` (or ``$MCP_PUBLIC_URL``, ``$MCP_PATH_PREFIX``) win over what it
   detected;
3. decides ports (:func:`~nanohubmcp.nanohub.plan.plan_launch`; ``--port 0`` or ``MCP_PORT=0``: a free
   port it picks, which every URL printed names) and says on stderr when a requested port cannot be
   honoured; refuses ports already in use;
4. starts the app in a child process (``python -m nanohubmcp.nanohub.child``, no temporary
   files; the token, the weber path and the public URL in its environment, never on its command
   line, which ``ps`` shows to every user) and, when found, wrwroxy in front of it, each in its own
   process group;
5. prints ``Proxy URL : <public URL>`` (when there is one), ``MCP Server ready! Access it at: <public
   URL>`` and the endpoint URLs only once each port accepts connections (bounded by
   ``--startup-timeout``); an app that fails first gets no URL printed;
6. supervises: if the app or wrwroxy exits, says so, stops the other and exits non-zero.

Steps 4 to 6 are :mod:`~nanohubmcp.nanohub.launch_children`'s; this module owns the command line and the plan.

SIGINT, SIGTERM and SIGHUP handlers are installed by :func:`main` itself (so they work for
the console script): they stop every child's process group and exit ``128 + signal``.

Exit status: 0 for ``--help`` and ``--version`` (``start_mcp <version>``, as ``nanohubmcp --version``
prints ``nanohubmcp <version>``), never when serving (it serves until stopped); 1 the app or wrwroxy failed or did not
start in time; 2 a usage or configuration error (missing file, no ``server`` in it,
unknown conda env, port in use); ``128 + n`` stopped by signal ``n``.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from nanohubmcp._version import __version__
from nanohubmcp.auth.token_option import add_token_options, token_from_options
from nanohubmcp.auth.verifiers import MCP_TOKEN_ENV
from nanohubmcp.errors import ConfigurationError, UsageError
from nanohubmcp.nanohub import child as app_child
from nanohubmcp.nanohub.launch_children import StopRequest, say, serve
from nanohubmcp.nanohub.plan import DEFAULT_PORT, WEBER_PORT, LaunchPlan, plan_launch
from nanohubmcp.nanohub.proxy import detect_proxy, override
from nanohubmcp.nanohub.pyenv import conda_env_python
from nanohubmcp.nanohub.run_call import skipped_keywords_note
from nanohubmcp.nanohub.supervisor import port_is_free
from nanohubmcp.nanohub.wrwroxy import find_wrwroxy
from nanohubmcp.processes.exit_grace import exit_grace_option
from nanohubmcp.processes.port_holders import connection_note, held_by_connection
from nanohubmcp.protocol.port_numbers import port_of
from nanohubmcp.transports.limit_option import LIMIT_OPTIONS, check_limit_options, limit_arguments, limit_keywords
from nanohubmcp.transports.port_option import port_number
from nanohubmcp.transports.proxy_option import proxy_arguments
from nanohubmcp.transports.seconds_option import positive_seconds, seconds_or_no_limit

__all__ = ["STOP_SIGNALS", "build_parser", "main"]

STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)
"""The signals that make ``start_mcp`` stop its children and exit."""



def build_parser() -> argparse.ArgumentParser:
    """Return the ``start_mcp`` argument parser."""
    parser = argparse.ArgumentParser(
        prog="start_mcp",
        description="Run an MCP server app file, on nanoHUB behind its weber proxy or locally.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--app", "-a", metavar="FILE", help="Python file defining a module-level `server`")
    parser.add_argument(
        "--rappture",
        action="append",
        metavar="PATH",
        help="serve a Rappture tool (its tool.xml, or a directory holding one) instead of an app file; repeatable",
    )
    parser.add_argument(
        "--sim2l",
        action="append",
        metavar="NOTEBOOK",
        help="serve a Sim2L notebook instead of an app file; repeatable, and with --rappture",
    )
    parser.add_argument(
        "--cell-timeout",
        type=seconds_or_no_limit,
        default=None,
        metavar="SECONDS",
        help="with --sim2l: seconds one notebook cell may run (default, or inf: no limit; a cancelled call's kernel is "
        "stopped either way)",
    )
    parser.add_argument(
        "--host",
        default=None,
        help="address of the listener weber (or you) connect to: wrwroxy if used, else the app "
        "(default 0.0.0.0 in a hub tool session, where weber needs it; else 127.0.0.1)",
    )
    add_token_options(
        parser,
        "bearer token every client must send (Authorization: Bearer <token>); passed to the app in its "
        "environment, never on a command line",
    )
    parser.add_argument(
        "--port",
        "-p",
        type=port_number,
        default=None,
        help=f"the app's port; 0: any free port (default $MCP_PORT, else {DEFAULT_PORT}; behind wrwroxy "
        f"{WEBER_PORT + 1}; in a tool session without wrwroxy the weber port, whatever is asked)",
    )
    proxy_arguments(parser, weber=True)  # a public URL given wins over the detected (weber) one
    limit_arguments(parser)
    parser.add_argument(
        "--exit-grace",
        type=exit_grace_option,
        default=None,
        metavar="SECONDS",
        help="the longest the app takes to exit once stopped (SIGTERM, Ctrl-C), whatever still runs: 2-86400 "
        "(default 10; start_mcp kills it 5 s past it)",
    )
    parser.add_argument(
        "--python-env", metavar="NAME", default=None, help="run the app with this conda env's Python"
    )
    parser.add_argument("--debug", action="store_true", help="debug logging in the app; wrwroxy --stream-log")
    parser.add_argument(
        "--weber-port",
        type=port_number,
        default=WEBER_PORT,
        help=f"the port the hub's proxy forwards to (default {WEBER_PORT}; "
        "change it only for tests or other hubs)",
    )
    parser.add_argument(
        "--startup-timeout",
        type=positive_seconds,
        default=120.0,
        metavar="SECONDS",
        help="how long the app (and wrwroxy) may take to start listening (default 120)",
    )
    return parser


def _requested_port(args: argparse.Namespace, environ: dict[str, str]) -> tuple[int | None, str]:
    if args.port is not None:
        return args.port, "--port"
    raw = environ.get("MCP_PORT", "").strip()
    if not raw:
        return None, "--port"
    return port_of(raw, "$MCP_PORT"), "MCP_PORT"


def _check_ports(plan: LaunchPlan) -> None:
    wanted = [(plan.app_host, plan.app_port, "the app")]
    if plan.wrwroxy_argv and plan.wrwroxy_host is not None and plan.wrwroxy_port is not None:
        wanted.append((plan.wrwroxy_host, plan.wrwroxy_port, "wrwroxy"))
    for host, port, who in wanted:
        if not 0 < port < 65536:
            raise ConfigurationError(f"port {port} for {who} is out of range (1-65535)")
        if not port_is_free(host, port):
            raise ConfigurationError(f"port {port} on {host} (for {who}) is already in use" + (
                f", {connection_note(port, None)}" if held_by_connection(port)
                else "; stop what holds it (an earlier start_mcp?) or choose another port"))


def _sources_app(args: argparse.Namespace) -> None:
    """``--rappture PATH`` / ``--sim2l NOTEBOOK``: serve the package's ``hub_app.py`` with the tools in its
    environment."""
    sources = []
    for kind, what, paths in (("rappture", "Rappture tool", args.rappture), ("sim2l", "Sim2L notebook", args.sim2l)):
        for path in paths or ():
            if not Path(path).exists():
                raise ConfigurationError(f"{what} {path!r} does not exist")
            entry: dict[str, object] = {"kind": kind, "path": str(Path(path).resolve())}
            if kind == "sim2l" and args.cell_timeout is not None:
                entry["cell_timeout"] = args.cell_timeout
            sources.append(entry)
    os.environ[app_child.SOURCES_ENV] = json.dumps(sources)  # the child inherits it
    args.app = str(app_child.PACKAGE_DIR / "hub_app.py")


def _run(args: argparse.Namespace, stop: StopRequest) -> int:
    args.token = token_from_options(args)  # --token-file read; --token warned about (ps shows it)
    if not args.app and not (args.rappture or args.sim2l):
        raise ConfigurationError("give an app file (--app FILE), or tools to serve (--rappture PATH, --sim2l NOTEBOOK)")
    if args.app and (args.rappture or args.sim2l):
        raise ConfigurationError("give an app file (--app FILE), or tools to serve (--rappture PATH, --sim2l "
                                 "NOTEBOOK), not both")
    if args.rappture or args.sim2l:
        _sources_app(args)
    app = Path(args.app)
    if not app.is_file():
        raise ConfigurationError(f"app file {args.app!r} does not exist")
    environ = dict(os.environ)
    port, source = _requested_port(args, environ)
    python = conda_env_python(args.python_env, environ=environ) if args.python_env else None

    version = None
    probe = detect_proxy(environ, port=port or DEFAULT_PORT)
    if probe.on_hub and probe.mode == "tool":
        version = find_wrwroxy()
        if version is None:
            say(f"no wrwroxy found with `use`; the app serves on {args.weber_port} under the weber path")
    if stop.requested():
        return 128 + (stop.signum or 0)
    plan = plan_launch(
        environ,
        host=args.host,
        port=port,
        port_source=source,
        weber_port=args.weber_port,
        wrwroxy_version=version,
        debug=args.debug,
    )
    if args.public_url is not None or args.path_prefix is not None:
        plan = dataclasses.replace(plan, info=override(plan.info, args.public_url, args.path_prefix))
    said = plan.info.reason + (f" ({version})" if plan.wrwroxy_argv else "")
    if plan.info.session is not None and not plan.info.on_hub and plan.info.public_url is None:
        # SESSION is set, yet the session cannot be used: say now, not at exit, that weber cannot reach it
        said += (f"; serving as off the hub, on {plan.app_host}:{plan.app_port} only, where the hub's weber "
                 "proxy cannot reach it")
    say(said)
    for notice in plan.notices:
        say(notice)
    _check_ports(plan)
    if not (args.rappture or args.sim2l):
        _note_skipped_keywords(app, plan, args)
    return serve(plan, python, args, stop)


_OPTION_OF_KEYWORD = {
    "public_url": "--public-url", "path_prefix": "--path-prefix", "allowed_origins": "--allowed-origins",
    "proxy_headers": "--proxy-headers", "host": "--host", "token": "--token-file", "exit_grace": "--exit-grace",
    **LIMIT_OPTIONS,
}
"""``run()`` keywords an app file may pass that ``start_mcp`` takes as options instead."""


def _note_skipped_keywords(app: Path, plan: LaunchPlan, args: argparse.Namespace) -> None:
    """One line naming every ``server.run(...)`` keyword of the app file ``start_mcp`` leaves out (its child
    serves the server itself), with the options that give them, unless given (the weber URL and path count)."""
    given = {"public_url": plan.info.public_url or args.public_url, "path_prefix": plan.info.path_prefix or None,
             "allowed_origins": args.allowed_origins, "proxy_headers": args.proxy_headers, "host": args.host,
             "token": args.token if args.token is not None else os.environ.get(MCP_TOKEN_ENV),
             "exit_grace": args.exit_grace, **limit_keywords(args)}  # fmt: skip
    note = skipped_keywords_note(app, "start_mcp", _OPTION_OF_KEYWORD, {k for k, v in given.items() if v})
    if note:
        say(f"note: {note}")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``start_mcp`` console script; returns the exit status.

    Installs the stop-signal handlers for its own lifetime and restores the previous
    ones before returning.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        check_limit_options(args)  # a limit run() refuses is a usage error, as argparse's own are
    except UsageError as exc:
        parser.error(str(exc))
    stop = StopRequest()
    previous = {sig: signal.signal(sig, stop) for sig in STOP_SIGNALS}
    try:
        return _run(args, stop)
    except ConfigurationError as exc:
        say(f"error: {exc}")
        return 2
    finally:
        for sig, handler in previous.items():
            with contextlib.suppress(TypeError, ValueError):
                signal.signal(sig, handler)


if __name__ == "__main__":
    sys.exit(main())
