"""The app process ``start_mcp`` supervises: load an app file's ``server`` and run it.

Usage (the launcher builds this; no temporary runner file is written)::

    NANOHUBMCP_CHILD_PATH_PREFIX=/weber/.../ NANOHUBMCP_CHILD_PUBLIC_URL=https://proxy.../ \\
    python -m nanohubmcp.nanohub.child --app FILE --host H --port P [--allowed-origins A,B] [--parent-pid N]
        [--debug] [--exit-grace SECONDS]

The weber path and public URL come in the environment (:func:`environment`), not on the command line:
on a hub they hold the session's secret proxy cookie, and ``ps`` shows a command line to every user of
the machine (``--path-prefix`` / ``--public-url`` still work, for a child started by hand).

The app file is imported under its own stem as module name (never ``__main__``, so its
``if __name__ == "__main__": server.run()`` block stays quiet) with its directory first on
``sys.path``; it must define a module-level ``server`` with a ``run`` method. Then
``server.run(host=, port=, path_prefix=, public_url=)`` serves until the process is
signalled. An exception while importing the app prints its traceback and the exit status is
1; a :class:`~nanohubmcp.errors.NanohubMCPError` (a ``ConfigurationError``: missing file, not a Python file, no
``server``, a port taken meanwhile; a ``RegistrationError`` of a tool the file registers, such as a function a
decorator made a generator) prints one line and exits 2 (``start_mcp`` adds nothing to it).

For ``--python-env`` the interpreter belongs to another environment, which may lack
nanohubmcp; :func:`command` then starts this module through :data:`BOOTSTRAP`, which
loads *the launcher's* nanohubmcp by file and appends the launcher's ``sys.path`` after
the environment's own, so the environment's packages win and only missing ones come
from the launcher.
"""

from __future__ import annotations

import argparse
import importlib.util
import logging
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

from nanohubmcp.errors import ConfigurationError, NanohubMCPError
from nanohubmcp.nanohub.app_file import AppImportError, checked_app_file, import_failure
from nanohubmcp.nanohub.run_call import asked_token
from nanohubmcp.processes.exit_grace import exit_grace_option
from nanohubmcp.processes.log_lines import escaping_handler
from nanohubmcp.protocol.whole_numbers import text_refusal, text_whole
from nanohubmcp.server.app_import import importing
from nanohubmcp.state.url import redact
from nanohubmcp.transports.limit_option import limit_arguments, limit_argv, limit_keywords
from nanohubmcp.transports.port_option import port_number

__all__ = ["BOOTSTRAP", "PATH_PREFIX_ENV", "PUBLIC_URL_ENV", "SOURCES_ENV", "command", "end", "environment",
           "load_app", "main"]

SOURCES_ENV = "NANOHUBMCP_SOURCES"
"""Tools of other formats for the package's ``hub_app.py`` app file to serve (JSON; see that file)."""

PATH_PREFIX_ENV = "NANOHUBMCP_CHILD_PATH_PREFIX"
"""The path the app serves under (the weber path ``/weber/<session>/<cookie>/<n>/``), from the launcher."""

PUBLIC_URL_ENV = "NANOHUBMCP_CHILD_PUBLIC_URL"
"""The app's public URL (the weber URL, holding the same cookie), from the launcher."""

PACKAGE_DIR = Path(__file__).resolve().parents[1]
"""The directory of the nanohubmcp package this module belongs to."""

BOOTSTRAP = """\
import importlib.util, os, sys, types
pkg, fallback = sys.argv[1], sys.argv[2]
del sys.argv[1:3]
sys.path.extend(p for p in fallback.split(os.pathsep) if p and p not in sys.path)
init = os.path.join(pkg, "__init__.py")
if os.path.exists(init):
    spec = importlib.util.spec_from_file_location("nanohubmcp", init, submodule_search_locations=[pkg])
    mod = importlib.util.module_from_spec(spec)
    sys.modules["nanohubmcp"] = mod
    spec.loader.exec_module(mod)
else:
    mod = types.ModuleType("nanohubmcp")
    mod.__path__ = [pkg]
    sys.modules["nanohubmcp"] = mod
from nanohubmcp.nanohub.child import end, main
end(main())
"""
"""Python source run with ``-c`` in a foreign interpreter: ``argv[1]`` = package dir,
``argv[2]`` = fallback ``sys.path`` joined by ``os.pathsep``, the rest = this module's args."""


def environment(*, path_prefix: str = "", public_url: str | None = None) -> dict[str, str]:
    """The variables to add to the child's environment for its path prefix and public URL.

    On a hub both hold the session's secret proxy cookie: a process's environment is readable by its
    user only (``/proc/<pid>/environ``), its command line by everyone (``ps``).
    """
    return {PATH_PREFIX_ENV: path_prefix, PUBLIC_URL_ENV: public_url or ""}


def command(
    python: str | os.PathLike[str] | None,
    *,
    app: str | os.PathLike[str],
    host: str,
    port: int,
    allowed_origins: str | list[str] | None = None,
    parent_pid: int | None = None,
    debug: bool = False,
    limits: dict[str, int] | None = None,
    exit_grace: float | None = None,
) -> list[str]:
    """Return the argv that runs ``app`` in a child; ``python=None`` means this interpreter. The path
    prefix and public URL go in its environment (:func:`environment`), never in this argv; ``limits`` are
    ``run()``'s limits the command line gave (:func:`~nanohubmcp.transports.limit_option.limit_keywords`);
    ``exit_grace``, ``run()``'s, in seconds (checked by the caller; None: ``run()``'s default)."""
    args = ["--app", str(app), "--host", host, "--port", str(port)]
    if allowed_origins:
        origins = allowed_origins if isinstance(allowed_origins, str) else ",".join(allowed_origins)
        args += ["--allowed-origins", origins]
    if parent_pid is not None:
        args += ["--parent-pid", str(parent_pid)]
    if debug:
        args.append("--debug")
    args += limit_argv(limits or {})
    if exit_grace is not None:
        args += ["--exit-grace", repr(exit_grace)]
    if python is None:
        return [sys.executable, "-m", "nanohubmcp.nanohub.child", *args]
    fallback = os.pathsep.join(p for p in sys.path if p and os.path.isabs(p))
    return [os.fspath(python), "-c", BOOTSTRAP, str(PACKAGE_DIR), fallback, *args]


def load_app(path: str | os.PathLike[str], *, state_dir: str | None = None, state_url: str | None = None,
             environ: Mapping[str, str] | None = os.environ) -> Any:
    """Import the app file and return its module-level ``server``.

    ``state_dir`` and ``state_url`` (a command line's ``--state-dir``, ``--state-url``; None: not given)
    win over the ``state_dir=`` / ``state_url=`` of a server the file builds
    (:mod:`nanohubmcp.server.app_import`); each of the file's own values replaced is named in one
    line on stderr. A ``server.run()`` or ``start()`` the file calls at import (not under ``if
    __name__ == "__main__":``) is skipped, with one line on stderr saying how to fix the file: the
    caller serves the server. A ``token=`` that call passes (:func:`~.run_call.asked_token`, its environment reads
    read in ``environ``: None, ``server-json``'s, counts every one) makes the server require a bearer token
    (``require_token``, unless it has ``auth=``): served over HTTP with none given, it refuses to start rather than
    serve without authorization.

    Raises:
        UsageError: ``path`` is not a Python file: a directory, a notebook, a ``tool.xml``
            (the message names what to give instead: :func:`~.app_file.checked_app_file`).
        ConfigurationError: the file does not exist, or defines no ``server`` with a
            ``run`` method (the message names an MCPServer the file keeps under another name).
        AppImportError: the file raised while imported (a ``ConfigurationError`` whose one-line
            message names the exception and the app's line; the exception is its ``__cause__``). A
            ``NanohubMCPError`` the file raises (a misused decorator) propagates as it is.
    """
    file = checked_app_file(path)
    name = file.stem if file.stem.isidentifier() else "mcp_app"
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:  # (a .py file always has a loader)
        raise ConfigurationError(f"cannot import {file} as Python (is it a .py file?)")
    sys.path.insert(0, str(file.parent))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses, pickle and typing look modules up here
    try:
        with importing(state_dir=state_dir, state_url=state_url) as done:
            spec.loader.exec_module(module)
    except NanohubMCPError:
        raise
    except Exception as exc:
        raise AppImportError(import_failure(file, exc, os.fspath(path))) from exc
    for option, value in done.replaced.items():
        flag = "--" + option.replace("_", "-")
        given = redact(done.overrides[option]) if option == "state_url" else done.overrides[option]
        mine = redact(str(value)) if option == "state_url" else value
        print(f"note: {flag} {given} is used, not the {option}={mine!r} {file.name} gives "
              "(the command line wins)", file=sys.stderr)
    for verb in dict.fromkeys(done.skipped):
        # Every caller (run, server-json, desktop-config, start_mcp's child) takes it: no command named.
        print(f"note: {file.name} calls server.{verb}() when imported; this command skips that call and its "
              f"arguments (its own options apply): put it under `if __name__ == \"__main__\":`, where "
              f"`python {file.name}` still runs it", file=sys.stderr)
    server = getattr(module, "server", None)
    if server is None:
        others = [var for var, value in vars(module).items() if _is_mcp_server(value) and not var.startswith("_")]
        hint = (f"; it has an MCPServer named `{others[0]}`: name it server (server = {others[0]})" if others
                else " (e.g. server = MCPServer('name'))")
        raise ConfigurationError(f"{file.name} defines no module-level `server`{hint}")
    if not callable(getattr(server, "run", None)):
        kind = type(server).__name__
        raise ConfigurationError(f"`server` in {file.name} is {'an' if kind[0] in 'aeiouAEIOU' else 'a'} {kind}, "
                                 "not an MCPServer (e.g. server = MCPServer('name'))")
    asked = asked_token(file, environ)
    if asked is not None and getattr(server, "auth", None) is None and getattr(server, "token_requirement", "") is None:
        # the command serves the server without making the file's run(token=...) call: fail closed, not open
        server.require_token(asked.reason(file.name))
    return server


def _is_mcp_server(value: object) -> bool:
    """Whether ``value`` is an ``MCPServer`` (known by its class, the facade being a layer above this one)."""
    return any(cls.__name__ == "MCPServer" and cls.__module__ == "nanohubmcp.facade" for cls in type(value).__mro__)


def _exit_with_parent(parent_pid: int) -> None:
    """Stop this process if the launcher disappears (e.g. SIGKILL), so no orphan keeps the port."""

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(0.5)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="nanohubmcp-parent-watch", daemon=True).start()


def _process_id(text: str) -> int:
    """``--parent-pid``'s process id, read as every option's whole number (ASCII digits, no ``_``)."""
    number = text_whole(text)
    if number is None or not 1 <= number < 2**31:
        raise argparse.ArgumentTypeError(text_refusal("", "a process id (a whole number >= 1)", text))
    return int(number)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m nanohubmcp.nanohub.child``; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="nanohubmcp.nanohub.child", description="Run an MCP app file (start_mcp's child)."
    )
    parser.add_argument("--app", required=True)
    parser.add_argument("--host", required=True)
    parser.add_argument("--port", required=True, type=port_number)
    # Given by the launcher in the environment (the cookie stays out of ps); the options are for a hand start.
    parser.add_argument("--path-prefix", default=os.environ.pop(PATH_PREFIX_ENV, ""))
    parser.add_argument("--public-url", default=os.environ.pop(PUBLIC_URL_ENV, "") or None)
    parser.add_argument("--allowed-origins", default=None, help="'*' or origins separated by commas")
    parser.add_argument("--parent-pid", type=_process_id, default=None)
    parser.add_argument("--debug", action="store_true")
    limit_arguments(parser)
    parser.add_argument("--exit-grace", type=exit_grace_option, default=None, metavar="SECONDS")
    args = parser.parse_args(argv)

    if args.parent_pid is not None:
        _exit_with_parent(args.parent_pid)
    logging.basicConfig(  # (a client's text in the log: its escapes written as such)
        level=logging.DEBUG if args.debug else logging.INFO,
        handlers=[escaping_handler("%(levelname)s %(name)s: %(message)s")],
    )
    try:
        server = load_app(args.app)
        from nanohubmcp.processes.process_end import served

        served()  # (the process is the server's from now on: end() ends it within its exit grace)
        origins = args.allowed_origins
        server.run(host=args.host, port=args.port, path_prefix=args.path_prefix, public_url=args.public_url,
                   allowed_origins=origins if origins in (None, "*") else origins.split(","), **limit_keywords(args),
                   **({} if args.exit_grace is None else {"exit_grace": args.exit_grace}))  # (else run()'s, 10 s)
    except AppImportError as exc:  # the app's own traceback, for the log: status 1, as the app's exception
        traceback.print_exception(exc.__cause__ or exc)
        return 1
    except NanohubMCPError as exc:  # no `server`, a busy port, a bad option, a tool refused: one line, status 2
        print(f"start_mcp: error: {exc}", file=sys.stderr, flush=True)
        return 2
    return 0


def end(status: int) -> NoReturn:
    """Exit with ``status``; once the app served, within its exit grace, its heap not freed
    (:func:`~nanohubmcp.processes.process_end.end_served_process`)."""
    ending = sys.modules.get("nanohubmcp.processes.process_end")  # (loaded by main() once the app is read)
    if ending is not None and ending.was_served():
        ending.end_served_process(status)
    sys.exit(status)


if __name__ == "__main__":
    end(main())
