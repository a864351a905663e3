"""The seconds options of the tool commands (``nanohubmcp rappture --timeout``, ``nanohubmcp sim2l --cell-timeout``,
``start_mcp --cell-timeout``): text read as a number of seconds in ASCII, refused as a usage error (exit status 2)
before any tool is read, in one shape. ``inf`` is no limit where the default is no limit (``--cell-timeout``), as
``tool_timeout`` reads it (:mod:`~nanohubmcp.protocol.seconds`). Only the standard library is imported here.
"""

from __future__ import annotations

import argparse
import math

from ..protocol.message_values import shown_value

__all__ = ["positive_seconds", "seconds_or_no_limit"]


def positive_seconds(text: str) -> float:
    """A positive, finite number of seconds (argparse type: ``rappture --timeout``, whose default is the tool's
    own limit), in ASCII as every option's number; refused before any tool is read, in the words
    :func:`seconds_or_no_limit` uses: "must be a positive number of seconds, not '0'"."""
    seconds = _seconds(text)
    if seconds is None or not 0 < seconds < math.inf:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {shown_value(text)}")
    return seconds


def seconds_or_no_limit(text: str) -> float | None:
    """A positive number of seconds, or ``inf`` for no limit, None (argparse type: ``--cell-timeout``, whose
    default is no limit: inf means no limit where None does, as ``tool_timeout`` reads it)."""
    seconds = _seconds(text)
    if seconds == math.inf:
        return None
    if seconds is None or not seconds > 0:  # (NaN too)
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, or inf for no limit, "
                                         f"not {shown_value(text)}")
    return seconds


def _seconds(text: str) -> float | None:
    try:
        return float(text) if text.isascii() else None
    except ValueError:
        return None
