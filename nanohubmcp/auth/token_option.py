"""The ``--token`` / ``--token-file`` options of the commands (``nanohubmcp run`` and the other serving
commands, ``nanohubmcp bridge``, ``nanohubmcp desktop-config``, ``start_mcp``).

A command line is world-readable on a shared machine (``ps``, ``/proc/<pid>/cmdline``), so the token
should come from ``$MCP_TOKEN`` or from a file only its owner can read:

- :func:`add_token_options` adds ``--token TOKEN`` and ``--token-file PATH`` (mutually exclusive);
- :func:`token_from_options` returns the token they give (None when neither is given: the command's
  default, ``$MCP_TOKEN``, applies), and prints a one-line warning on stderr when ``--token`` was used.
  An empty ``--token ""`` (what ``--token "$VAR"`` gives when ``VAR`` is unset) is a usage error, not
  "no token": leave the option out for that. A token the command serves with is checked there
  (:func:`~.verifiers.checked_token`), so that a refusal names the option (``the token in --token-file
  ~/.mcp-token contains a space at position 7; ...``), not ``$MCP_TOKEN``, in which ``start_mcp``
  hands the token to its app.
- ``add_token_options(parser, help_text, resolve=True)`` (a script's own parser, through
  :func:`nanohubmcp.cli.add_script_token_options`) does both within ``parse_args``: ``args.token`` is then the
  token or None, an empty ``--token`` exits 2 with the usage, an unreadable token file exits 1 with one line;
  a token no client can send (:func:`~.verifiers.checked_token`: not visible ASCII) exits as
  they do: 2 from ``--token``, 1 from a file.

A token file holds the token (surrounding whitespace, such as the final newline, is stripped). One that
the group or other users may read (mode ``& 0o044``), or that is empty, is refused with
:class:`~nanohubmcp.errors.ConfigurationError`, as ``ssh`` refuses a private key others can read; every
refusal starts with ``--token-file PATH``.
"""

from __future__ import annotations

import argparse
import functools
import os
import shlex
import stat
import sys
from typing import Any, TextIO

from ..errors import ConfigurationError, UsageError
from .verifiers import MAX_TOKEN_LENGTH, checked_token

__all__ = [
    "COMMAND_LINE_WARNING", "EMPTY_TOKEN_MESSAGE", "OPTION_SOURCE", "add_token_options", "file_source",
    "read_token_file", "token_from_options",
]

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

OPTION_SOURCE = "the token given as --token"
"""What a refusal of a ``--token`` value calls it (:func:`~.verifiers.checked_token`)."""


def file_source(path: str) -> str:
    """What a refusal of the token read from ``path`` calls it: ``the token in --token-file PATH``."""
    return f"the token in --token-file {shlex.quote(path)}"


class _TokenNow(argparse.Action):
    """``--token T`` resolved while parsing: an empty one is a usage error, any other warned about."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        if not str(values).strip():
            parser.error(EMPTY_TOKEN_MESSAGE)  # exits 2 with the usage
        try:  # the script serves with it (run(token=...)): one no client can send is a usage error
            namespace.token = checked_token(str(values), OPTION_SOURCE)
        except ConfigurationError as exc:
            parser.error(str(exc))
        print(COMMAND_LINE_WARNING, file=sys.stderr, flush=True)


class _TokenFileNow(argparse.Action):
    """``--token-file PATH`` read while parsing: ``args.token`` is its token; a file refused exits 1."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        try:  # the script serves with it (run(token=...)): one no client can send is refused now
            namespace.token = checked_token(read_token_file(str(values)), file_source(str(values)))
        except ConfigurationError as exc:
            parser.exit(1, f"{parser.prog}: error: {exc}\n")
        namespace.token_file = str(values)


def add_token_options(parser: argparse.ArgumentParser, help_text: str, *, resolve: bool = False,
                      directory: str | None = None) -> None:
    """Add ``--token TOKEN`` and ``--token-file PATH`` to ``parser`` (``help_text`` says what the token is for).

    They land in ``args.token`` and ``args.token_file`` (None when not given); the command then calls
    :func:`token_from_options`. With ``resolve=True`` ``parse_args`` does its work instead: ``args.token``
    is the token either option gives (None when neither), an empty ``--token`` exits 2 with the usage and
    :data:`EMPTY_TOKEN_MESSAGE`, a token file :func:`read_token_file` refuses exits 1 with one line.
    ``directory``: a relative ``--token-file`` PATH is read from there (``args.token_file`` is then the
    joined path), not from the working directory: the caller's, for a script that changed its own.
    """
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--token", default=None, metavar="TOKEN", action=_TokenNow if resolve else "store",
                       help=f"{help_text} (default: $MCP_TOKEN). Visible to other users in ps: prefer "
                       "$MCP_TOKEN or --token-file")
    group.add_argument("--token-file", default=None, metavar="PATH", action=_TokenFileNow if resolve else "store",
                       type=str if directory is None else functools.partial(_in_directory, directory),
                       help="read the token from PATH (readable by its owner only, e.g. chmod 600)")


def _in_directory(directory: str, path: str) -> str:
    return os.path.join(directory, os.path.expanduser(path))


def read_token_file(path: str) -> str:
    """Return the token held in the file ``path``, stripped.

    Raises:
        ConfigurationError: the file cannot be read, is readable by its group or other users, is
            empty, or is longer than the longest token considered (16 KiB); the message starts with
            ``--token-file PATH``. What the token holds is :func:`~.verifiers.checked_token`'s business.
    """
    named = f"--token-file {shlex.quote(path)}"
    try:
        with open(path, "rb") as handle:
            mode = os.fstat(handle.fileno()).st_mode
            if not stat.S_ISREG(mode):
                raise ConfigurationError(f"{named} is not a regular file: give the file that holds the token")
            if mode & 0o044:
                raise ConfigurationError(
                    f"{named} is readable by other users (mode {stat.S_IMODE(mode):04o}); "
                    f"make it private first: chmod 600 {shlex.quote(path)}"
                )
            raw = handle.read(MAX_TOKEN_LENGTH + 2)
    except OSError as exc:
        raise ConfigurationError(f"{named} cannot be read: {exc.strerror or exc}") from None
    token = raw.decode("utf-8", "replace").strip()
    if not token:
        raise ConfigurationError(f"{named} is empty: write the token into it (one line)")
    if len(token) > MAX_TOKEN_LENGTH:
        raise ConfigurationError(
            f"{named} holds more than {MAX_TOKEN_LENGTH} bytes: the file holds the token alone, on one line")
    return token


def token_from_options(args: argparse.Namespace, *, stderr: TextIO | None = None, served: bool = True) -> str | None:
    """The token ``--token`` / ``--token-file`` give, or None when neither was given.

    Warns on ``stderr`` (default ``sys.stderr``) with :data:`COMMAND_LINE_WARNING` when ``--token`` was given.

    Args:
        args: the parsed options of :func:`add_token_options`.
        stderr: where the warning goes.
        served: the command serves with the token: one no client can send is refused here, naming the
            option. False for a command that sends it (``nanohubmcp bridge``) or writes it down
            (``nanohubmcp desktop-config``), which check it themselves.

    Raises:
        UsageError: ``--token`` is empty or white space (a ``ConfigurationError``: ``nanohubmcp`` and
            ``start_mcp`` exit 2).
        ConfigurationError: as :func:`read_token_file`; with ``served``, as :func:`~.verifiers.checked_token`.
    """
    if args.token_file is not None:
        token = read_token_file(args.token_file)
        return checked_token(token, file_source(args.token_file)) if served else token
    if args.token is not None:
        if not args.token.strip():
            raise UsageError(EMPTY_TOKEN_MESSAGE)
        if served:  # refused before the warning: this token is not going to be used
            args.token = checked_token(args.token, OPTION_SOURCE)
        print(COMMAND_LINE_WARNING, file=stderr or sys.stderr, flush=True)
    return args.token
