"""The seconds options of the tool commands (``nanohubmcp rappture --timeout``, ``nanohubmcp sim2l --cell-timeout``,
``start_mcp --cell-timeout``): text read as a number of seconds by every option's rule (ASCII digits, no ``_``:
:func:`~nanohubmcp.protocol.whole_numbers.text_number`), refused as a usage error (exit status 2)
before any tool is read, in one shape. ``inf`` is no limit, as ``tool_timeout`` reads it
(:mod:`~nanohubmcp.protocol.seconds`): None where the default is no limit (``--cell-timeout``), ``math.inf`` where
the default is a limit of its own (``--timeout``: the tool's). Only the standard library is imported here.
"""

from __future__ import annotations

import argparse
import math

from ..protocol.seconds import MOST_WAIT_SECONDS, past_any_wait
from ..protocol.whole_numbers import text_number, text_number_refusal

__all__ = ["positive_seconds", "seconds_or_inf", "seconds_or_no_limit"]


def positive_seconds(text: str) -> float:
    """A positive, finite number of seconds (argparse type: ``start_mcp --startup-timeout``, which has no "no
    limit"), in ASCII as every option's number; refused before any tool is read, in the words
    :func:`seconds_or_no_limit` uses: "must be a positive number of seconds, not '0'"."""
    seconds = text_number(text)
    if seconds is None or not 0 < seconds < math.inf:
        raise argparse.ArgumentTypeError(text_number_refusal("a positive number of seconds", text))
    if past_any_wait(seconds):
        raise argparse.ArgumentTypeError(text_number_refusal(
            f"a positive number of seconds, at most {MOST_WAIT_SECONDS:.0f} (the longest wait)", text))
    return seconds


def seconds_or_no_limit(text: str) -> float | None:
    """A positive number of seconds, or ``inf`` for no limit, None (argparse type: ``--cell-timeout``, whose
    default is no limit: inf, and a number past any wait (``1e308``), mean no limit where None does, as
    ``tool_timeout`` reads it)."""
    seconds = text_number(text)
    if seconds is not None and past_any_wait(seconds):  # inf, 1e308: no limit (protocol.seconds.limit_seconds)
        return None
    if seconds is None or not seconds > 0:  # (NaN too)
        raise argparse.ArgumentTypeError(text_number_refusal("a positive number of seconds, or inf for no limit",
                                                             text))
    return seconds


def seconds_or_inf(text: str) -> float:
    """A positive number of seconds, or ``inf`` (a number past any wait too, ``1e308``) for no limit, said as
    ``math.inf`` (argparse type: ``rappture --timeout``, whose default, None, is the tool's own limit, not none);
    refused as :func:`seconds_or_no_limit` refuses: "must be a positive number of seconds, or inf for no limit"."""
    seconds = seconds_or_no_limit(text)
    return math.inf if seconds is None else seconds
