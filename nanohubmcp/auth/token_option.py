"""The ``--token`` / ``--token-file`` options of the commands (``nanohubmcp run`` and the other serving
commands, ``nanohubmcp bridge``, ``nanohubmcp desktop-config``, ``start_mcp``).

A command line is world-readable on a shared machine (``ps``, ``/proc/<pid>/cmdline``), so the token
should come from ``$MCP_TOKEN`` or from a file only its owner can read:

- :func:`add_token_options` adds ``--token TOKEN`` and ``--token-file PATH`` (mutually exclusive);
- :func:`token_from_options` returns the token they give (None when neither is given: the command's
  default, ``$MCP_TOKEN``, applies), and prints a one-line warning on stderr when ``--token`` was used.
  An empty ``--token ""`` (what ``--token "$VAR"`` gives when ``VAR`` is unset) is a usage error, not
  "no token": leave the option out for that.

A token file holds the token (surrounding whitespace, such as the final newline, is stripped). One that
the group or other users may read (mode ``& 0o044``), or that is empty, is refused with
:class:`~nanohubmcp.errors.ConfigurationError`, as ``ssh`` refuses a private key others can read.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
from typing import TextIO

from ..errors import ConfigurationError, UsageError
from .verifiers import MAX_TOKEN_LENGTH

__all__ = ["COMMAND_LINE_WARNING", "add_token_options", "read_token_file", "token_from_options"]

COMMAND_LINE_WARNING = (
    "warning: --token on the command line is visible to other users of this machine (ps, /proc/<pid>/cmdline); "
    "set MCP_TOKEN in the environment or use --token-file PATH"
)
"""The line :func:`token_from_options` prints on stderr when ``--token`` was given."""


def add_token_options(parser: argparse.ArgumentParser, help_text: str) -> None:
    """Add ``--token TOKEN`` and ``--token-file PATH`` to ``parser`` (``help_text`` says what the token is for).

    They land in ``args.token`` and ``args.token_file`` (None when not given).
    """
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--token", default=None, metavar="TOKEN",
                       help=f"{help_text} (default: $MCP_TOKEN). Visible to other users in ps: prefer "
                       "$MCP_TOKEN or --token-file")
    group.add_argument("--token-file", default=None, metavar="PATH",
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
            raise UsageError("--token is empty; give the token (in $MCP_TOKEN or --token-file PATH rather than on "
                             "the command line), or leave --token out for no token")
        print(COMMAND_LINE_WARNING, file=stderr or sys.stderr, flush=True)
    return args.token
