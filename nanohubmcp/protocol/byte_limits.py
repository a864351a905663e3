"""The one rule for the server's byte limits (``max_inline_bytes``, ``max_result_bytes``, ``max_kept_bytes``, ...),
read alike by ``MCPServer(...)`` and by ``%config NanohubMCP`` (and so by a notebook's export): what each takes, which
values are a whole number of bytes, and how a refusal reads.

A limit takes any whole number as an int, by the one rule of :mod:`.whole_numbers` (the counts' too): an integer
(numpy's ``int64`` too) and a real number holding a whole number (``5.0``, ``1e5``, ``1e30``). A bool (numpy's too), a
real number that is not whole (``5.5``, ``Fraction(7, 2)``), NaN, a string and a ``Decimal`` are refused in one line
naming the setting, what it takes, the value and, where it reads as a number, what to write. A limit taking None for no
limit (``max_inline_bytes``: always inline; ``max_result_bytes``; ``max_event_bytes``) takes ``float("inf")`` as that
None, as ``tool_timeout`` does, and an int past a float's range (``10**400``) as the int, a bound nothing reaches; one
that refuses None refuses inf too (no limit is no value there). Nothing is imported here beyond the standard library.
"""

from __future__ import annotations

from .whole_numbers import whole_refusal

__all__ = ["BYTE_LIMITS", "refusal", "takes"]

BYTE_LIMITS: dict[str, tuple[int, str]] = {
    "max_inline_bytes": (0, ", or None to always inline"),
    "max_result_bytes": (1, ", or None for no limit"),
    "max_event_bytes": (1 << 20, " (1 MiB), or None for no bound"),
    "max_kept_bytes": (1, ""),
    "max_kept_bytes_per_owner": (1, ""),
    "max_job_result_bytes": (1, ""),
    "cache_max_bytes": (1, ""),
}
"""``MCPServer``'s byte limits -> (the least value, what None (and so ``float("inf")``) means: "" where None is
refused)."""


def takes(setting: str) -> str:
    """What the byte limit ``setting`` (a key of :data:`BYTE_LIMITS`) takes, as its refusals say it:
    ``"a number of bytes >= 0, or None to always inline"``."""
    least, none = BYTE_LIMITS[setting]
    return f"a number of bytes >= {least}{none}"


def refusal(setting: str, value: object) -> str:
    """The refusal of ``value`` for the byte limit ``setting`` as ``MCPServer(...)`` says it: "max_inline_bytes must
    be a number of bytes >= 0, or None to always inline, not 5.5; write a whole number: 6"."""
    return whole_refusal(setting, takes(setting), value)
