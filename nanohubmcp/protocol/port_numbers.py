"""A server's port number, read by the whole-number rule (:mod:`.whole_numbers`) wherever it is given: ``run(port=)``
and ``%config NanohubMCP.port`` (a number: ``8000``, ``8000.0``, numpy's ``int64``), ``--port``, ``$MCP_PORT`` and
``start_mcp --port`` (text: ``"8000"``, ``"8000.0"``, ASCII digits only). ``run(port="8000")`` is read as that text
too: scripts written for 0.4.x pass ``os.environ["MCP_PORT"]`` as the port, and the port is the one setting that
takes a str. A refusal names where the value came from, in one line. Pure: no I/O.
"""

from __future__ import annotations

from ..errors import ConfigurationError
from .whole_numbers import text_refusal, text_whole, whole_number, whole_refusal

__all__ = ["PORT_TAKES", "port_of"]

PORT_TAKES = "a whole number between 0 and 65535 (0: any free port)"
"""What a port takes, as its refusals say it."""


def port_of(value: object, source: str = "port") -> int:
    """``value`` as a port number, 0-65535: a whole number, or text holding one (``"8000.0"``).

    Args:
        source: what the refusal names (``"port"``, ``"$MCP_PORT"``; ``""`` for an option argparse names).

    Raises:
        ConfigurationError: one line: "port must be a whole number between 0 and 65535 (0: any free port), not
            8000.5; write a whole number: 8001".
    """
    if isinstance(value, str):
        number = text_whole(value)
        if number is None or not 0 <= number <= 65535:
            raise ConfigurationError(text_refusal(source, PORT_TAKES, value))
        return int(number)
    whole = whole_number(value)
    if whole is None or not 0 <= whole <= 65535:
        raise ConfigurationError(whole_refusal(source, PORT_TAKES, value))
    return whole
