"""The ``--token`` / ``--token-file`` options of the commands (``nanohubmcp run`` and the other serving
commands, ``nanohubmcp bridge``, ``nanohubmcp desktop-config``, ``start_mcp``).

A command line is world-readable on a shared machine (``ps``, ``/proc/<pid>/cmdline``), so the token
should come from ``$MCP_TOKEN`` or from a file only its owner can read:

- :func:`add_token_options` adds ``--token TOKEN`` and ``--token-file PATH`` (mutually exclusive);
- :func:`token_from_options` returns the token they give (None when neither is given: the command's
  default, ``$MCP_TOKEN``, applies), and prints a one-line warning on stderr when ``--token`` was used.
  An empty ``--token ""`` (what ``--token "$VAR"`` gives when ``VAR`` is unset) is a usage error, not
  "no token": leave the option out for that.
- ``add_token_options(parser, help_text, resolve=True)`` (a script's own parser, through
  :func:`nanohubmcp.cli.add_token_options`) does both within ``parse_args``: ``args.token`` is then the
  token or None, an empty ``--token`` exits 2 with the usage, an unreadable token file exits 1 with one line;
  a token no client can send (:func:`~.verifiers.checked_token`: not visible ASCII) exits as
  they do: 2 from ``--token``, 1 from a file.

A token file holds the token (surrounding whitespace, such as the final newline, is stripped). One that
the group or other users may read (mode ``& 0o044``), or that is empty, is refused with
:class:`~nanohubmcp.errors.ConfigurationError`, as ``ssh`` refuses a private key others can read.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
from typing import Any, TextIO

from ..errors import ConfigurationError, UsageError
from .verifiers import MAX_TOKEN_LENGTH, checked_token

__all__ = ["COMMAND_LINE_WARNING", "EMPTY_TOKEN_MESSAGE", "add_token_options", "read_token_file", "token_from_options"]

COMMAND_LINE_WARNING = (
    "warning: --token on the command line is visible to other users of this machine (ps, /proc/<pid>/cmdline); "
    "set MCP_TOKEN in the environment or use --token-file PATH"
)
"""The line :func:`token_from_options` prints on stderr when ``--token`` was given."""

EMPTY_TOKEN_MESSAGE = (
    "--token is empty; give the token (in $MCP_TOKEN or --token-file PATH rather than on the command line), "
    "or leave --token out for no token"
)
"""The usage error of an empty (or white-space) ``--token``."""


class _TokenNow(argparse.Action):
    """``--token T`` resolved while parsing: an empty one is a usage error, any other warned about."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        if not str(values).strip():
            parser.error(EMPTY_TOKEN_MESSAGE)  # exits 2 with the usage
        try:  # the script serves with it (run(token=...)): one no client can send is a usage error
            namespace.token = checked_token(str(values))
        except ConfigurationError as exc:
            parser.error(f"--token: {exc}")
        print(COMMAND_LINE_WARNING, file=sys.stderr, flush=True)


class _TokenFileNow(argparse.Action):
    """``--token-file PATH`` read while parsing: ``args.token`` is its token; a file refused exits 1."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        try:
            namespace.token = read_token_file(str(values))
        except ConfigurationError as exc:
            parser.exit(1, f"{parser.prog}: error: {exc}\n")
        try:  # the script serves with it (run(token=...))
            checked_token(namespace.token)
        except ConfigurationError as exc:
            parser.exit(1, f"{parser.prog}: error: token file {str(values)!r}: {exc}\n")
        namespace.token_file = str(values)


def add_token_options(parser: argparse.ArgumentParser, help_text: str, *, resolve: bool = False) -> None:
    """Add ``--token TOKEN`` and ``--token-file PATH`` to ``parser`` (``help_text`` says what the token is for).

    They land in ``args.token`` and ``args.token_file`` (None when not given); the command then calls
    :func:`token_from_options`. With ``resolve=True`` ``parse_args`` does its work instead: ``args.token``
    is the token either option gives (None when neither), an empty ``--token`` exits 2 with the usage and
    :data:`EMPTY_TOKEN_MESSAGE`, a token file :func:`read_token_file` refuses exits 1 with one line.
    """
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--token", default=None, metavar="TOKEN", action=_TokenNow if resolve else "store",
                       help=f"{help_text} (default: $MCP_TOKEN). Visible to other users in ps: prefer "
                       "$MCP_TOKEN or --token-file")
    group.add_argument("--token-file", default=None, metavar="PATH", action=_TokenFileNow if resolve else "store",
                       help="read the token from PATH (readable by its owner only, e.g. chmod 600)")


def read_token_file(path: str) -> str:
    """Return the token held in the file ``path``, stripped.

    Raises:
        ConfigurationError: the file cannot be read, is readable by its group or other users, is
            empty, or is longer than the longest token considered (16 KiB).
    """
    try:
        with open(path, "rb") as handle:
            mode = os.fstat(handle.fileno()).st_mode
            if not stat.S_ISREG(mode):
                raise ConfigurationError(f"token file {path!r} is not a regular file")
            if mode & 0o044:
                raise ConfigurationError(
                    f"token file {path!r} is readable by other users (mode {stat.S_IMODE(mode):04o}); "
                    f"make it private first: chmod 600 {path}"
                )
            raw = handle.read(MAX_TOKEN_LENGTH + 2)
    except OSError as exc:
        raise ConfigurationError(f"cannot read token file {path!r}: {exc.strerror or exc}") from None
    token = raw.decode("utf-8", "replace").strip()
    if not token:
        raise ConfigurationError(f"token file {path!r} is empty")
    if len(token) > MAX_TOKEN_LENGTH:
        raise ConfigurationError(f"token file {path!r} holds more than {MAX_TOKEN_LENGTH} bytes")
    return token


def token_from_options(args: argparse.Namespace, *, stderr: TextIO | None = None) -> str | None:
    """The token ``--token`` / ``--token-file`` give, or None when neither was given.

    Warns on ``stderr`` (default ``sys.stderr``) with :data:`COMMAND_LINE_WARNING` when ``--token`` was given.

    Raises:
        UsageError: ``--token`` is empty or white space (a ``ConfigurationError``: ``nanohubmcp`` and
            ``start_mcp`` exit 2).
        ConfigurationError: as :func:`read_token_file`.
    """
    if args.token_file is not None:
        return read_token_file(args.token_file)
    if args.token is not None:
        if not args.token.strip():
            raise UsageError(EMPTY_TOKEN_MESSAGE)
        print(COMMAND_LINE_WARNING, file=stderr or sys.stderr, flush=True)
    return args.token
