"""A wait as the whole seconds of a ``Retry-After`` header (RFC 9110 § 10.2.3).

Read from what a 503 names: an error body's ``data.retryAfter`` (:func:`retry_after_of`, the handler's
replies) or a tool result's ``_meta`` (the REST transport). Imported with the first 503 or REST call:
a first answer needs no wait.
"""

from __future__ import annotations

import math
from typing import Any

from ..protocol.seconds import seconds_of

MAX_RETRY_AFTER = 2**31
"""The most seconds a ``Retry-After`` header names: a longer wait is sent as this (RFC 9111 § 1.2.2 has a
cache read any larger delta-seconds as 2^31)."""


def retry_after_of(body: Any) -> int | None:
    """``data.retryAfter`` of an error body as :func:`retry_after_seconds` reads it."""
    error = body.get("error") if isinstance(body, dict) else None
    data = error.get("data") if isinstance(error, dict) else None
    return retry_after_seconds(data.get("retryAfter") if isinstance(data, dict) else None)


def retry_after_seconds(retry: object) -> int | None:
    """``retry``, a wait a middleware or a tool's result names, as the whole seconds of a ``Retry-After``
    header (a whole number, RFC 9110 § 10.2.3): any real number — ``2.5``, a numpy ``int64`` — rounded up,
    at most :data:`MAX_RETRY_AFTER` (``10**5000`` too: its text would be 5,000 digits, which ``str()``
    refuses); None for none, a bool, a negative or non-finite number."""
    if isinstance(retry, int) and not isinstance(retry, bool):  # (the usual one)
        return min(retry, MAX_RETRY_AFTER) if retry >= 0 else None
    seconds = seconds_of(retry)  # (one past a float's range, a long Fraction: infinity, capped below)
    if seconds is None or not seconds >= 0 or retry == math.inf:  # (NaN is not >= 0; an infinite wait names none)
        return None
    return MAX_RETRY_AFTER if seconds > MAX_RETRY_AFTER else math.ceil(seconds)
