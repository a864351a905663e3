"""The ``--max-request-bytes``, ``--max-buffered-bytes``, ``--max-buffered-bytes-per-principal``,
``--max-unsent-bytes`` and ``--max-unsent-bytes-per-principal`` options of the commands that serve an app
file's ``server`` themselves (``nanohubmcp run``, ``start_mcp --app``).

Such a command never makes the app's own ``server.run(...)`` call, so the limits written there (an
exported notebook's ``%config NanohubMCP.max_request_bytes``, say) would not apply; these options give
them. Each means what ``MCPServer.run()``'s argument of the same name means; left out, ``run()``'s
default holds. A value that is not a whole number of bytes is a usage error (exit status 2), and so is one
``run()`` refuses (:func:`check_limit_options`: below its least value, 1024 for the request bytes, 1 MiB for
the unsent bytes, ``--max-request-bytes`` for the buffered bytes), named by its option, before the app is
imported.
Only ``argparse`` is imported here (``decimal`` too, for a value such as ``16e6``: ``whole_text``).
"""

from __future__ import annotations

import argparse
import math

from ..protocol.whole_numbers import MOST_DIGITS, text_refusal, text_whole

__all__ = ["LIMIT_OPTIONS", "byte_count", "check_limit_options", "limit_arguments", "limit_argv", "limit_keywords",
           "most_workers", "worker_count", "workers_take"]

LIMIT_OPTIONS = {
    "max_request_bytes": "--max-request-bytes",
    "max_buffered_bytes": "--max-buffered-bytes",
    "max_buffered_bytes_per_principal": "--max-buffered-bytes-per-principal",
    "max_unsent_bytes": "--max-unsent-bytes",
    "max_unsent_bytes_per_principal": "--max-unsent-bytes-per-principal",
}
"""``run()`` keyword -> its option."""

_HELP = {
    "max_request_bytes": "request body limit (default 16 MiB, at least 1024; 413 above it)",
    "max_buffered_bytes": "the most bytes of request bodies received at once over every connection (default "
                          "256 MiB; at least --max-request-bytes)",
    "max_buffered_bytes_per_principal": "the most of them one authenticated principal's bodies take (default an "
                                        "eighth of --max-buffered-bytes; at least --max-request-bytes; "
                                        "--max-buffered-bytes or more: no per-principal bound)",
    "max_unsent_bytes": "the most response bytes held for clients that have not read them (default 256 MiB, at "
                        "least 1 MiB)",
    "max_unsent_bytes_per_principal": "the share of them one authenticated principal holds before its connections "
                                      "are the first closed (default an eighth of --max-unsent-bytes; at least "
                                      "1 MiB; --max-unsent-bytes or more: no per-principal share)",
}


def most_workers() -> int:
    """The most processes ``run(workers=...)`` and ``nanohubmcp run --workers`` start: 8 per CPU this process
    may use, never fewer than 64.

    Each worker is a whole Python process with its own tool thread pool; past a few per CPU they only share the
    same cores, and a typo (``--workers 40000`` for 4) would fork until the machine stops answering.
    """
    import os

    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(64, 8 * cpus)


def workers_take(most: int) -> str:
    """What ``--workers`` and ``run(workers=)`` take on a machine whose most is ``most``, as their refusals say it."""
    return f"a number of processes from 1 to {most} (8 per CPU, never fewer than 64)"


def worker_count(text: str) -> int:
    """A whole number of processes, 1 to :func:`most_workers` (argparse type): ``nanohubmcp run --workers``."""
    most = most_workers()
    value = text_whole(text)
    if value is None or not 1 <= value <= most:
        raise argparse.ArgumentTypeError(text_refusal("", workers_take(most), text))
    return int(value)


def byte_count(text: str) -> int:
    """A whole number of bytes (argparse type), also written as a number with a fraction or an exponent that is
    whole (``16e6``, ``4096.0``: as ``run()`` takes the float; ``1e31``, a bound nothing reaches, as its digits;
    at most :data:`~nanohubmcp.protocol.whole_numbers.MOST_DIGITS` digits); how few a limit may be is
    :func:`check_limit_options`'s, which knows the others given (``--max-buffered-bytes`` at least
    ``--max-request-bytes``)."""
    number = text_whole(text)  # exact: 16e6 is 16000000, 1e31 10**31, never a float's neighbour
    if number == math.inf:  # 1e999999999 would take minutes to make an int of
        raise argparse.ArgumentTypeError(text_refusal("", f"a whole number of bytes of at most {MOST_DIGITS} digits",
                                                      text))
    if number is None:
        raise argparse.ArgumentTypeError(text_refusal("", "a whole number of bytes", text))
    return int(number)


def limit_arguments(command: argparse.ArgumentParser) -> None:
    """Add the five limit options (each None when left out); :func:`check_limit_options` checks them."""
    for keyword, option in LIMIT_OPTIONS.items():
        command.add_argument(option, dest=keyword, type=byte_count, default=None, metavar="BYTES",
                             help=f"HTTP: {_HELP[keyword]}; the run() argument of the same name")


def limit_keywords(args: argparse.Namespace) -> dict[str, int]:
    """The limits the command line gives, as ``run()``'s keyword arguments."""
    return {k: getattr(args, k) for k in LIMIT_OPTIONS if getattr(args, k, None) is not None}


def check_limit_options(args: argparse.Namespace) -> None:
    """Refuse the limits given as ``run()`` would (:func:`.limits.check_limits`), naming the options.

    Raises:
        UsageError: one line, e.g. ``--max-unsent-bytes-per-principal must be at least 1 MiB (1048576), not
            100``: the command answers it with its usage and exit status 2, before the app is imported.
    """
    from ..errors import ConfigurationError, UsageError
    from .limits import check_limits

    try:
        check_limits(limit_keywords(args), LIMIT_OPTIONS.__getitem__)
    except ConfigurationError as exc:
        raise UsageError(str(exc)) from None


def limit_argv(limits: dict[str, int]) -> list[str]:
    """``limits`` (:func:`limit_keywords`) as options again, for a child process's command line."""
    return [part for keyword, value in limits.items() for part in (LIMIT_OPTIONS[keyword], str(value))]
