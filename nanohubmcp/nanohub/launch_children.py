"""The children of a ``start_mcp`` launch: started, awaited, announced and watched.

:func:`serve` starts the app (``python -m nanohubmcp.nanohub.child``, the token, the weber path and the
public URL in its environment, never on its command line) and, when the plan has one, wrwroxy in front of
it; waits for each to listen (bounded by ``--startup-timeout``; the app until it answers an HTTP request, so its
own banner is printed before), prints the ready banner once both do,
then watches them until one exits or a stop signal arrives, and stops them all on the way out.

Serves :mod:`~nanohubmcp.nanohub.launcher`, which owns the command line and the plan; the processes
themselves are :mod:`~nanohubmcp.nanohub.supervisor`'s.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from types import FrameType

from nanohubmcp.auth.verifiers import MCP_TOKEN_ENV
from nanohubmcp.errors import ConfigurationError
from nanohubmcp.nanohub import child as app_child
from nanohubmcp.nanohub.plan import LaunchPlan
from nanohubmcp.nanohub.supervisor import Child, wait_for_port
from nanohubmcp.processes.exit_grace import DEFAULT_EXIT_GRACE_SECONDS, kill_wait
from nanohubmcp.transports.limit_option import limit_keywords
from nanohubmcp.transports.proxy_option import PROXY_HEADERS_VARIABLE

_SUPERVISE_POLL = 0.2  # seconds between liveness checks while serving


class StopRequest:
    """Signal handler target: remembers the first stop signal; checked by the loops."""

    def __init__(self) -> None:
        self.signum: int | None = None

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        if self.signum is None:
            self.signum = signum

    def requested(self) -> bool:
        return self.signum is not None


def say(message: str) -> None:
    """Print ``start_mcp: <message>`` on stderr."""
    print(f"start_mcp: {message}", file=sys.stderr, flush=True)


def _print_ready(plan: LaunchPlan, token: str | None, source: str | None = None) -> None:
    """The ready banner on stdout. The header clients send is printed whole only to a terminal, or for a
    token given with ``--token`` (``source`` None: already on the command line); a token read from
    ``source`` (``$MCP_TOKEN``, a token file) is named by where it is, not written into a log or pipe."""
    base = plan.info.public_url or plan.local_url
    # Every public URL only now that the port answers (an app that fails to import gets none printed).
    lines = [f"Proxy URL : {plan.info.public_url}"] if plan.info.public_url else []
    lines += [
        f"MCP Server ready! Access it at: {base}",
        f"Streamable HTTP endpoint: {base}mcp",
        f"SSE endpoint: {base}sse",
    ]
    if token:
        shown = token if source is None or _is_terminal(sys.stdout) else f"<the token in {source}>"
        lines.append(f"Clients send the header: Authorization: Bearer {shown}")
    if plan.info.public_url:
        lines.append(f"Listening locally on: {plan.local_url}")
    print("\n".join(lines), flush=True)


def _is_terminal(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if callable(isatty) else False
    except ValueError:  # a closed stream
        return False


def _token_source(args: argparse.Namespace) -> str | None:
    """Where the token came from, for the banner: the token file, ``$MCP_TOKEN``, or None (``--token``)."""
    if args.token_file is not None:
        return str(args.token_file)
    return None if args.token is not None else f"${MCP_TOKEN_ENV}"


def _await(proc: Child, host: str, port: int, timeout: float, stop: StopRequest, *, http: bool = False) -> int | None:
    """Wait for ``proc`` to listen (``http``: to answer an HTTP request, so the app's banner, printed once it
    listens, comes before start_mcp's); None when ready, else the exit status to return."""
    state = wait_for_port(
        host, port, timeout=timeout, alive=lambda: proc.returncode() is None, cancelled=stop.requested, http=http
    )
    if state == "ready":
        return None
    if state == "cancelled":
        return 128 + (stop.signum or 0)
    if state == "timeout":
        say(f"error: {proc.name} did not listen on {host}:{port} within {timeout:g} s; stopping")
        return 1
    status = proc.returncode()
    if proc.name == "the app" and status == 2:
        return 2  # the child already printed the one-line reason (no `server`, ...)
    say(
        f"error: {proc.name} exited with status {status} before listening on {host}:{port} "
        "(its output is above)"
    )
    return status if status and status > 0 else 1


def _start(name: str, argv: list[str], env: dict[str, str]) -> Child:
    try:
        return Child(name, argv, env)
    except OSError as exc:
        raise ConfigurationError(f"cannot start {name} ({argv[0]}): {exc.strerror or exc}") from exc


def serve(plan: LaunchPlan, python: Path | None, args: argparse.Namespace, stop: StopRequest) -> int:
    """Run ``plan``'s children (the app under ``python``, None: this interpreter) until one exits or ``stop``
    is requested; returns ``start_mcp``'s exit status (1 or the child's, ``128 + signal``) and stops them all.

    Raises:
        ConfigurationError: a child could not be started.
    """
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    if args.token is not None:
        env[MCP_TOKEN_ENV] = args.token  # the app's run() reads it (not argv: ps shows argv)
    if args.proxy_headers:
        env[PROXY_HEADERS_VARIABLE] = "1"  # read by the app's run() as $MCP_TOKEN is
    # The weber path and URL hold the session's secret cookie: the app's environment, not its argv (ps).
    app_env = dict(env, **app_child.environment(path_prefix=plan.info.path_prefix, public_url=plan.info.public_url))
    children: list[Child] = []
    try:
        app = _start(
            "the app",
            app_child.command(
                python,
                app=Path(args.app).resolve(),
                host=plan.app_host,
                port=plan.app_port,
                allowed_origins=args.allowed_origins,
                parent_pid=os.getpid(),
                debug=args.debug,
                limits=limit_keywords(args),
                exit_grace=args.exit_grace,
            ),
            app_env,
        )
        children.append(app)
        failed = _await(app, plan.app_host, plan.app_port, args.startup_timeout, stop, http=True)
        if failed is not None:
            return failed
        if plan.wrwroxy_argv and plan.wrwroxy_host is not None and plan.wrwroxy_port is not None:
            proxy = _start("wrwroxy", plan.wrwroxy_argv, env)
            children.append(proxy)
            failed = _await(proxy, plan.wrwroxy_host, plan.wrwroxy_port, args.startup_timeout, stop)
            if failed is not None:
                return failed
        _print_ready(plan, env.get(MCP_TOKEN_ENV) or None, _token_source(args))
        while not stop.requested():
            for proc in children:
                status = proc.returncode()
                if status is not None:
                    say(f"error: {proc.name} (pid {proc.pid}) exited with status {status}; stopping")
                    return status if status > 0 else 1
            time.sleep(_SUPERVISE_POLL)
        return 128 + (stop.signum or 0)
    finally:
        for proc in reversed(children):  # the app keeps its exit grace; killed 5 s past it, as a --workers parent's
            proc.stop(kill_wait(args.exit_grace or DEFAULT_EXIT_GRACE_SECONDS) if proc is children[0] else 5.0)
