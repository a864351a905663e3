"""The ``nanohubmcp`` command: project tasks as subcommands.

Usage::

    nanohubmcp export NOTEBOOK [-o FILE] [--no-format] [--force]
    nanohubmcp run APP.py [--transport stdio|http] [--host HOST] [--port N] [--token-file PATH]
                          [--workers N] [--state-url redis://HOST:6379/0] [--state-dir DIR] [--access-log]
                          [--public-url URL] [--path-prefix PATH] [--max-request-bytes BYTES] ...
    nanohubmcp sim2l NOTEBOOK... [--name NAME] [--async] [--results-dir DIR] [--cell-timeout S]
                                 [serving options as run]
    nanohubmcp rappture TOOL.xml... [--name NAME] [--async] [--timeout S] [--no-plot] [serving options as run]
    nanohubmcp hub-tools [--root /apps]
    nanohubmcp hub-tools [--root /apps] NAME[/REVISION]... [--async] [serving options as run]
    nanohubmcp bridge URL [--header 'Name: value' ...] [--cookie 'name=value'] [--token-file PATH]
    nanohubmcp desktop-config APP [--client claude|vscode|cursor] [--name NAME] [--env NAME=VALUE ...]
    nanohubmcp desktop-config --url URL [--token-file PATH] [--client ...]
    nanohubmcp server-json APP [-o FILE] [--name NAMESPACE/NAME] [--public-url URL]

``run`` imports a Python file and serves its module-level ``server`` (like ``start_mcp --app``);
``--transport stdio`` is what desktop clients (Claude Desktop, VS Code, Cursor) launch.
A bearer token comes from ``$MCP_TOKEN`` or ``--token-file PATH`` (a file only its owner can read);
``--token T`` works too but warns, since ``ps`` shows a command line to every user of the machine.
``sim2l``, ``rappture`` and ``hub-tools NAME...`` take every serving option of ``run`` (all but APP),
checked in the same words (:mod:`.serving_options` defines them once); with ``--workers N`` the processes
are forked from the one that read the tools, as ``run``'s are from the one that imported the app.
``sim2l`` serves Sim2L notebooks (see :mod:`nanohubmcp.sources.sim2l`), ``rappture`` Rappture
tools (:mod:`nanohubmcp.sources.rappture`); ``hub-tools`` lists the
Rappture tools and Sim2Ls installed on a hub, or serves the ones named (:mod:`nanohubmcp.sources.hub`).
``bridge`` speaks stdio to such a client and Streamable HTTP (or legacy SSE) to a running server.
``server-json`` writes the MCP Registry's ``server.json`` for an app file's ``server``
(:func:`nanohubmcp.transports.discovery.server_json`); on a nanoHUB tool session its remotes are the
weber URLs.

``export`` writes the notebook as a runnable MCP server script (default: ``start_mcp.py`` next
to the notebook; ``-o -`` prints it), translated by :func:`nanohubmcp.jupyter.translate.translate`
— the same translation as ``jupyter nbconvert --to mcp``, without needing nbconvert. The file is
written to a temporary name and renamed only once the whole notebook translated, so a failed
export leaves no file and no half-finished one. An existing file is replaced only when it is an
earlier export of the same notebook, not a hand-written file nor another notebook's export (``--force``
replaces any file).

Exit status, of every subcommand: 0 done; 2 a usage error — what the command line itself gets wrong
(argparse's own: an unknown option, a missing argument, a value of the wrong type; and the values the
subcommands check: a URL that is not http(s) with a host, ``NAME=VALUE`` or ``'Name: value'`` without
its separator, APP and ``--url`` both or neither, ``--name`` with several PATHs, a malformed
``--state-url``, a ``--license`` not on the SPDX License List, a ``--port`` outside 0-65535, ``--workers``
below 1 or above 1 without a shared state URL or over stdio, a serving option given to ``hub-tools`` without
a NAME (the listing would ignore it), a ``server-json --name`` not ``namespace/name``, an APP
that is not a Python file — a directory, a notebook, a ``tool.xml``, the message naming what to give
instead), with the usage line; 1 a command line
that is well formed but failed (a file missing or unreadable, an app that raises while imported — the
exception, its text and the app's line, not the traceback —, an app without ``server`` or whose
``server`` is not an MCPServer, a notebook that cannot be translated or would serve nothing, a token file
others can read, a port in use), one line on stderr; 130, saying nothing, a Ctrl-C before the command served or
finished (:func:`main`).

Where each part lives: :mod:`.parser` the arguments of every subcommand (a new subcommand is a
``subparsers`` entry there with a ``run`` default), :mod:`.serve` the subcommands that serve (``run``,
``sim2l``, ``rappture``, ``hub-tools``, ``bridge``), :mod:`.serving_options` the serving options those
but ``bridge`` share, :mod:`.documents` the ones that write a file or
print a document (``export``, ``server-json``, ``desktop-config``, ``provenance``), :mod:`.script_options` the
``--port`` and token options a script of your own adds as the subcommands check them, ``--transport`` (and
:func:`~.script_options.required_token`, for a script that serves only with a token), :mod:`.script_folder`
the working directory of an exported notebook's script (the notebook's folder), :mod:`.script_exit` its end once it
served, or refused at its start (as the command's). This module owns
only :func:`main`: parse, run, turn a :class:`~nanohubmcp.errors.UsageError` into the subcommand's
usage and exit status 2 (one of an environment variable: one line, exit status 2), any other
:class:`~nanohubmcp.errors.NanohubMCPError` into one line on stderr and exit status 1 (2 for an environment
variable's).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from ..auth.token_option import token_from_options
from ..errors import ConfigurationError, NanohubMCPError, RegistrationError, UsageError
from .parser import PROG, build_parser, parse_arguments
from .script_exit import ends_as_served, refusals_in_one_line
from .script_folder import work_in_notebook_folder
from .script_options import (
    add_port_option,
    add_script_token_options,
    add_transport_option,
    keep_stdout_for_stdio,
    required_token,
)
from .warning_lines import terse_warnings

__all__ = ["add_port_option", "add_script_token_options", "add_transport_option", "build_parser", "ends_as_served",
           "keep_stdout_for_stdio", "main", "refusals_in_one_line", "required_token", "work_in_notebook_folder"]


def main(argv: Sequence[str] | None = None) -> int:
    """The ``nanohubmcp`` command (what the console script and ``python -m nanohubmcp`` run); returns the exit
    status. A Ctrl-C (KeyboardInterrupt) before the command served or finished — importing what it needs, or
    the app of ``run`` — ends it with status 130, saying nothing; one while serving stops the server (status 0).
    Output whose reader went first (``nanohubmcp provenance list | head``) ends it quietly with status 141."""
    try:
        with terse_warnings():  # RegistrationWarning: ..., without Python's file:line frame (:mod:`.warning_lines`)
            return _command(argv)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # its output's reader went first (``... | head``): end quietly, as ``ls`` does
        _quiet_stdout()
        return 141  # 128 + SIGPIPE (13): the status a shell gives a program its pipe's reader ended


def _quiet_stdout() -> None:
    """Point standard output at the null device, so the interpreter's last flush of what is still buffered
    for a reader that has gone does not print a second traceback."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # (no file descriptor behind it: nothing is flushed there)
        pass


def _command(argv: Sequence[str] | None) -> int:
    args = parse_arguments(argv)
    try:
        if hasattr(args, "token_file"):  # --token-file read, a --token on the command line warned about
            args.token = token_from_options(args, served=getattr(args, "token_served", True))
        return int(args.run(args))
    except UsageError as exc:
        if exc.variable is None:
            args.usage_error(str(exc))  # exits 2, as argparse does for its own usage errors
        print(f"{PROG} {args.command}: error: {exc}", file=sys.stderr)  # an environment variable's: no usage
        return 2
    except NanohubMCPError as exc:
        if "nanohubmcp.processes.workers" in sys.modules:  # (only a --workers server loaded it)
            from ..processes.workers import worker_task

            if worker_task() is not None:  # a worker started again, failing at its start: not the command
                print(f"{PROG}: worker {worker_task()} (pid {os.getpid()}) could not start: {exc}", file=sys.stderr)
                return 1
        print(f"{PROG} {args.command}: error: {_in_option_terms(exc, args)}", file=sys.stderr)
        return 2 if isinstance(exc, ConfigurationError) and exc.variable is not None else 1


def _in_option_terms(exc: NanohubMCPError, args: argparse.Namespace) -> str:
    """The error's message, its Python keyword fix (``name='my_beam'``) said as the command's option
    (``--name my_beam``) when the command serves the tool itself and has that option (``rappture``, ``sim2l``)."""
    option = getattr(exc, "option", None)
    if not isinstance(exc, RegistrationError) or not option or args.command not in ("rappture", "sim2l") \
            or not hasattr(args, option):
        return str(exc)
    flag = "--" + option.replace("_", "-")
    return exc.said_with(flag, f"add {flag} NAME")
