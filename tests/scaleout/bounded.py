"""Bounds for the scale-out tests' waits: a client left without an answer fails the test in
seconds, saying what it waited for, instead of hanging until pytest-timeout's dump."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import anyio
import pytest

ANSWER_SECONDS = 10.0
"""Longest wait for one answer of the official client (its ``read_timeout_seconds``): a call of
these tests takes well under a second, and a few on a loaded machine."""
SESSION_SECONDS = 40.0
"""Longest a whole client session of these tests may take (connect, a few calls, close)."""


@contextlib.asynccontextmanager
async def answered_within(seconds: float, what: str) -> AsyncIterator[None]:
    """Fail the test when the block takes more than ``seconds`` (a lost message: no answer comes)."""
    try:
        with anyio.fail_after(seconds):
            yield
    except TimeoutError:
        pytest.fail(f"{what}: no answer within {seconds:g} s (a message lost between the processes?)")
