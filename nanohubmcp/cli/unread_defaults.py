"""Environment variables a subcommand reads only when it serves: ``hub-tools`` without a NAME lists the installed
tools and serves nothing, so a malformed ``$MCP_PORT`` or ``$MCP_PUBLIC_URL`` (meant, in a hub session's
environment, for another program) must not refuse the listing. argparse converts a text default with its option's
type while it parses; here those defaults are held back (:func:`hold_environment_defaults`) and read once the
command knows it serves (:func:`read_environment_defaults`), with the message argparse gives: "argument --port:
$MCP_PORT must be a whole number between 0 and 65535 (0: any free port), not 'abc'" (exit status 2).
Only ``argparse`` is imported here.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any, NoReturn

from ..transports.proxy_option import FromEnvironment

__all__ = ["Unread", "hold_environment_defaults", "read_environment_defaults"]


class Unread:
    """An option's default taken from an environment variable, not yet read: no ``str``, so argparse leaves it
    as it is (it converts only a text default)."""

    def __init__(self, text: FromEnvironment, action: argparse.Action) -> None:
        self.text = text
        self.action = action

    def __repr__(self) -> str:
        return f"Unread(${self.text.variable})"

    def read(self, usage_error: Callable[[str], NoReturn]) -> Any:
        """The value, converted by the option's type; a value it refuses is ``usage_error`` (exit status 2),
        named as argparse names an option's ("argument --port: ...")."""
        convert = self.action.type
        if not callable(convert):
            return self.text
        try:
            return convert(self.text)
        except (argparse.ArgumentTypeError, ValueError, TypeError) as exc:
            usage_error(f"argument {'/'.join(self.action.option_strings)}: {exc}")


def hold_environment_defaults(command: argparse.ArgumentParser) -> None:
    """Make each of ``command``'s option defaults read from an environment variable (:class:`FromEnvironment`:
    ``--port``'s ``$MCP_PORT``, ``--public-url``'s ``$MCP_PUBLIC_URL``, ...) :class:`Unread`."""
    for action in command._actions:  # (argparse's list of a parser's options: no public one)
        if isinstance(action.default, FromEnvironment):
            action.default = Unread(action.default, action)


def read_environment_defaults(args: argparse.Namespace, *, serving: bool) -> None:
    """Read every :class:`Unread` default in ``args`` (``serving``), or leave each None: a command that does not
    serve reads no serving variable."""
    for dest, value in vars(args).items():
        if isinstance(value, Unread):
            setattr(args, dest, value.read(args.usage_error) if serving else None)
