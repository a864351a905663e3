"""The ``--port`` option's type, shared by the ``nanohubmcp`` serving subcommands, a script's
:func:`~nanohubmcp.cli.add_port_option` and ``start_mcp --port``: text read as ``run(port=...)`` reads it
(:mod:`~nanohubmcp.protocol.port_numbers`), refused as a usage error. Only ``argparse`` is imported here.
"""

from __future__ import annotations

import argparse

from ..errors import ConfigurationError
from ..protocol.port_numbers import port_of
from .proxy_option import named_source

__all__ = ["port_number"]


def port_number(text: str) -> int:
    """A TCP port number, 0-65535 (argparse type; 0: any free port), read as every whole-number option is
    (``8000``, ``8000.0``; ASCII digits only). A value that is the default read from ``$MCP_PORT``
    (:class:`~.proxy_option.FromEnvironment`) is named so in the message.

    Raises:
        argparse.ArgumentTypeError: "must be a whole number between 0 and 65535 (0: any free port), not '8000.5';
            write a whole number: 8001" (argparse starts it with "argument --port: ").
    """
    try:
        return port_of(text, named_source(text).strip())
    except ConfigurationError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
