"""The thread that looks for records other processes write keeps looking after a lookup fails in any way
(review r22 N3).

It caught ``sqlite3.Error`` only: any other exception (an AttributeError from a backend replaced at
close, a MemoryError) ended it with its slot still taken, so no read was ever woken again and each one
waited its whole 5 s for the rest of the process. Now a failed look counts as "not found yet", is logged
once, and the next look is made; a thread ended by a BaseException frees its slot, so the next read that
waits starts another.

The lookup here is the watcher's seam (``awaited.Lookup``) answered from a set, failing as told.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Collection

import pytest

from nanohubmcp.server.provenance.awaited import AwaitedRecords

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]
RECORD = "r" * 24
WITHIN = 5.0


class Failing:
    """Stored records, whose first ``failures`` looks raise ``error``."""

    def __init__(self, failures: int, error: BaseException) -> None:
        self.failures = failures
        self.error = error
        self.stored: set[str] = set()

    def changed(self) -> bool:
        return True

    def written(self, record_ids: Collection[str]) -> set[str]:
        if self.failures:
            self.failures -= 1
            raise self.error
        return set(record_ids) & self.stored


async def test_a_read_is_woken_after_looks_that_failed_with_any_error(caplog: pytest.LogCaptureFixture) -> None:
    lookup = Failing(3, AttributeError("'NoneType' object has no attribute 'execute'"))
    lookup.stored.add(RECORD)
    records = AwaitedRecords(lookup, every=0.01)
    started = time.monotonic()
    with caplog.at_level(logging.WARNING, "nanohubmcp.provenance"):
        found = await records.written(RECORD, None, WITHIN)
    assert found
    assert time.monotonic() - started < WITHIN / 2  # found by a later look, not after the whole wait
    warned = [r for r in caplog.records if "could not look for provenance records" in r.getMessage()]
    assert len(warned) == 1, caplog.text  # logged once, with its traceback: a lookup's own error
    assert warned[0].exc_info is not None


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")  # the thread's end, told here
async def test_a_watcher_ended_by_a_base_exception_is_replaced_by_the_next_read() -> None:
    lookup = Failing(1, SystemExit(3))
    records = AwaitedRecords(lookup, every=0.01)
    assert not await records.written("x" * 24, None, 0.3)  # its thread ended at its first look
    lookup.stored.add(RECORD)
    started = time.monotonic()
    assert await asyncio.wait_for(records.written(RECORD, None, WITHIN), WITHIN + 5)
    assert time.monotonic() - started < WITHIN / 2  # a new thread looked for it
