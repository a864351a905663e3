"""The server's counts (``max_jobs``, ``max_jobs_per_owner``, ``max_stuck_calls``, ``workers``, ``job_workers``,
``list_page_size``, ``run(workers=)``, a Sim2L's ``max_stored_runs``): what each takes, as its refusals and
``%config NanohubMCP``'s say it.

Each takes any whole number as the int, by the rule of :mod:`.whole_numbers` (as the byte limits do); a refusal
reads "max_jobs must be a number of jobs >= 1, not 5.5; write a whole number: 6". Pure: no I/O.
"""

from __future__ import annotations

from ..errors import ConfigurationError
from .whole_numbers import whole_number, whole_refusal

__all__ = ["COUNTS", "counted", "takes"]

COUNTS: dict[str, tuple[int, str, str]] = {
    "list_page_size": (1, "entries per page", ", or None for the default pages"),
    "workers": (1, "threads", ", or None for the default"),
    "job_workers": (1, "jobs run at once", ", or None for as many as workers"),
    "max_stuck_calls": (0, "calls", ""),
    "max_jobs": (1, "jobs", ""),
    "max_jobs_per_owner": (1, "jobs", ""),
    "run_workers": (1, "processes", ""),
    "max_stored_runs": (1, "runs", ", or None for the default (1,000)"),
}
"""A count -> (its least value, what it counts, what None means: "" where None is refused); ``run_workers`` is
``run(workers=)`` (and ``nanohubmcp run --workers``)."""


def takes(count: str) -> str:
    """What ``count`` (a key of :data:`COUNTS`) takes, as its refusals say it: ``"a number of jobs >= 1"``."""
    least, unit, none = COUNTS[count]
    return f"a number of {unit} >= {least}{none}"


def counted(count: str, value: object, setting: str | None = None) -> int | None:
    """``value`` for ``count`` (a key of :data:`COUNTS`) as an int (``5.0``, numpy's ``int64(5)`` -> ``5``), or
    None where it takes None.

    Args:
        setting: the name the refusal gives (default ``count``; ``"workers"`` for ``run_workers``).

    Raises:
        ConfigurationError: no whole number (a bool, ``5.5``, NaN, inf, ``"5"``), or below its least, in one line:
            "max_jobs must be a number of jobs >= 1, not 0".
    """
    least, _, none = COUNTS[count]
    if value is None and none:
        return None
    number = whole_number(value)
    if number is None or number < least:
        raise ConfigurationError(whole_refusal(setting or count, takes(count), value))
    return number
