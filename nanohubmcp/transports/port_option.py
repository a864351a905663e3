"""The ``--port`` option's type, shared by the ``nanohubmcp`` serving subcommands, a script's
:func:`~nanohubmcp.cli.add_port_option` and ``start_mcp --port``: text read as ``run(port=...)`` reads it
(:mod:`~nanohubmcp.protocol.port_numbers`), refused as a usage error. Only ``argparse`` is imported here.
"""

from __future__ import annotations

import argparse

from ..errors import ConfigurationError
from ..protocol.port_numbers import port_of
from .proxy_option import named_source

__all__ = ["CommandLinePort", "port_number"]


class CommandLinePort(int):
    """A port :func:`port_number` read from a command line (``--port N``, or ``$MCP_PORT`` as its default): an
    int, which ``run()`` told of a busy port answers in the command line's words, ``--port 0`` for any free port,
    not ``port=0`` (trial58 F7: an example script run with ``--port`` said ``use port=0``)."""

    ANY_PORT = "--port 0"
    """How a command line asks for any free port."""


def port_number(text: str) -> CommandLinePort:
    """A TCP port number, 0-65535 (argparse type; 0: any free port), read as every whole-number option is
    (``8000``, ``8000.0``; ASCII digits only). A value that is the default read from ``$MCP_PORT``
    (:class:`~.proxy_option.FromEnvironment`) is named so in the message. A :class:`CommandLinePort`, so that
    ``run()`` names ``--port 0`` for a busy one.

    Raises:
        argparse.ArgumentTypeError: "must be a whole number between 0 and 65535 (0: any free port), not '8000.5';
            write a whole number: 8001" (argparse starts it with "argument --port: ").
    """
    try:
        return CommandLinePort(port_of(text, named_source(text).strip()))
    except ConfigurationError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
