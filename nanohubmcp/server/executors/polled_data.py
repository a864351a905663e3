"""A done job's data over ``max_inline_bytes`` in an MCP answer of the job (``get_job_result``, ``tasks/result``,
the tasks extension's ``tasks/get``): kept as a resource once per job and linked, as a direct MCP call of the tool
keeps and links it.

A job's record holds its data whole (a REST poll reads the value: :func:`~..results.sink.call_sink`); an MCP
client reading it gets the blocks a direct call answers for such data instead — a note with a preview of its
first characters, then a ``resource_link`` (``result.json``, or ``result.txt`` for a text) — so that large data
stays out of the model's context. The data is kept owned by the job's owner (its principal, else its session),
naming the job (whoever may read the job by its id reads it too: :mod:`..handlers.kept_reader`), on the first
such answer, and those blocks are stored with the job's record (its ``kept_data``, reserved first:
:meth:`~..jobs.backend.JobBackend.keep_data`), so later answers, by any method on any process sharing the job
store, give the same blocks (the same URI) for as long as the job's record lives; they are kept again when the
result store no longer holds their link (or holds one an earlier version kept, naming no job: that copy is left
to expire, so a client holding its link still reads it). A copy kept in this process's memory (the results
folder's lock not had in time) is never stored with the record: the other processes could not read it.
The job's record cannot be read or written (the state store down: Redis stopped, the SQLite file locked past
its timeout or unreadable) while the job is in hand (this process ran it): its data is kept and answered all
the same, its link not stored with the record (logged); the answers of the job go on giving that copy while the
store is down, and the first once it is back stores it with the record as a first keep does (another process's,
stored first, is answered then, and this copy is left to expire: a client holding its link reads it).
Each process remembers the blocks of the :data:`REMEMBERED` most recently read jobs, so that a poll does not
read the record again. Two first answers of one job at the same moment keep it once: in one process the second
waits for the first's keep; across processes the first to reserve the record's slot (:mod:`.kept_slot`: a
reservation stored before anything is written, the first stored wins) writes the one copy, and the others wait
for its link and answer it, writing nothing (so evicting nothing of the owner's to make room for a copy that
would be dropped). A reservation whose process died (older than :data:`.kept_slot.RESERVED_SECONDS`) is taken
over, one this process could not complete (the store went away meanwhile) at once by its next keep; a stored
link that no longer reads (evicted or expired meanwhile) is replaced.
What this module does not do: decide whether an answer is over MCP (the caller's ``Context.inline_limit``,
``tasks/result``), nor shape the answer (:mod:`.job_tools`, :mod:`..handlers.answered_result`).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Final, TypeGuard

from ...errors import ResultTooLarge
from ...protocol import jsonenc
from ..results.owners import PRINCIPAL_OWNER, SESSION_OWNER
from . import kept_slot

if TYPE_CHECKING:
    from ..jobs.backend import JobBackend
    from ..jobs.record import Job
    from ..results.options import ResultOptions
    from ..results.store import ResultStore

__all__ = ["REMEMBERED", "PolledData", "job_owner"]

log = logging.getLogger("nanohubmcp.jobs")
tool_log = logging.getLogger("nanohubmcp.tool")  # (a job answered too much: where a call's refusal is logged)

Wire = dict[str, Any]

REMEMBERED: Final = 256
"""How many jobs' kept data :class:`PolledData` remembers in this process (the least recently read is forgotten
first: an answer of a forgotten job reads it from the job's record)."""


def job_owner(job: Job) -> str | None:
    """The owner key (:mod:`..results.owners`) of what ``job`` keeps: its principal, else its session's key,
    else None (a job a REST call without authorization started: readable to anyone holding the link). A job read back
    with only its principal's digest (a shared store's), no caller matched yet: the digest's key, nobody's."""
    if job.principal is not None:
        return f"{PRINCIPAL_OWNER}{job.principal}"
    if job.principal_digest is not None:
        return job.owner_key()
    return f"{SESSION_OWNER}{job.owner}" if job.owner is not None else None


class _Flight:
    """The first keep of one job's data: its lock, and how many answers hold or wait for it."""

    __slots__ = ("lock", "users")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.users = 0


class PolledData:
    """The kept data of done jobs read over MCP: one per server, shared by its ``get_job_result`` tool and
    ``tasks/result``; thread-safe.

    Args:
        store: where the data is kept (the server's large results).
        options: ``max_inline_bytes`` (read at each answer, as it is then).
        records: the job store's back end, where the blocks are stored with the job's record (asked at the
            first answer that reads them: the back end opens with the job store).
        remembered: how many jobs' blocks are remembered in this process.
    """

    def __init__(self, store: ResultStore, options: ResultOptions, records: Callable[[], JobBackend],
                 remembered: int = REMEMBERED) -> None:
        self._store = store
        self._options = options
        self._records = records
        self._remembered = remembered
        self._blocks: OrderedDict[str, list[Wire]] = OrderedDict()
        self._fits: OrderedDict[str, int] = OrderedDict()  # done jobs whose data fit: its JSON's length
        self._unstored: OrderedDict[str, list[Wire]] = OrderedDict()  # copies answered, not stored with the record
        # done jobs whose data was refused (logged): the refusal, and the limits it was made under
        self._too_large: OrderedDict[str, tuple[str, tuple[int, int | None]]] = OrderedDict()
        self._abandoned: OrderedDict[str, list[Wire]] = OrderedDict()  # reservations the store went away under
        self._flights: dict[str, _Flight] = {}
        self._lock = threading.Lock()

    def kept(self, job: Job, value: Callable[[], Any]) -> list[Wire] | None:
        """:meth:`_kept`; data larger than the store keeps is logged once per job (of the
        :data:`REMEMBERED` most recently refused), naming the job's tool and id, not at each poll; refused
        again at once, without making or encoding the value, while the limits are those it was refused under
        (a done job's data never changes)."""
        limits = (self._store.max_bytes, self._options.max_result_bytes)
        with self._lock:
            refused = self._too_large.get(job.id)
        if refused is not None and refused[1] == limits:
            raise ResultTooLarge(refused[0], logged=True)
        try:
            return self._kept(job, value)
        except ResultTooLarge as exc:
            with self._lock:
                said = job.id in self._too_large
                self._too_large[job.id] = (str(exc), limits)
                self._too_large.move_to_end(job.id)
                while len(self._too_large) > self._remembered:
                    self._too_large.popitem(last=False)
            if not said:
                tool_log.warning("job %s of tool %r answered too much: %s", job.id, job.tool, exc)
            raise ResultTooLarge(str(exc), logged=True) from None

    def _kept(self, job: Job, value: Callable[[], Any]) -> list[Wire] | None:
        """``[note, resource_link]`` for ``job``'s data, ``value()`` (the value its poll answers), when its JSON
        (a text: the text itself) is longer than ``max_inline_bytes`` characters, else None (the value goes in
        the answer). Blocks remembered for the job, or stored with its record, whose link the store still
        holds, are answered without calling ``value`` or encoding anything.

        Blocking (it may write the data to the results folder, read the job's record, or wait for another
        answer's keep of the same job): call it off the event loop.

        Raises:
            ResultTooLarge: the data is larger than the store keeps.
        """
        owner = job_owner(job)
        blocks = self._held(job.id, owner)
        if blocks is not None:
            return blocks
        with self._lock:
            size = self._fits.get(job.id)
        if size is not None and not self._over(owner, job.id, size):
            return None  # it fit before and still does (a done job's data never changes): no record read
        with self._flight(job.id):  # one first keep per job: a second answer waits here, then reads its blocks
            blocks = self._held(job.id, owner)
            if blocks is not None:
                return blocks
            try:
                return self._recorded(job.id, owner, value)
            except Exception as exc:
                if not _store_down(exc):
                    raise
                return self._unrecorded(job.id, owner, value, exc)

    def _recorded(self, job_id: str, owner: str | None, value: Callable[[], Any]) -> list[Wire] | None:
        """:meth:`kept`'s first keep of ``job_id``'s data, stored with its record (or the blocks stored there):
        written once the record's slot is reserved (:mod:`.kept_slot`), else another process's link answered."""
        records = self._records()
        stored = kept_slot.stored(records, job_id)  # (kept by another process, or by this one and forgotten here)
        if self._lives(stored, owner, job_id):
            return self._remember(job_id, stored)
        unstored = self._unstored_copy(job_id, owner)  # (answered while the store was down: stored now)
        keep = (lambda: unstored) if unstored is not None else self._keeping(owner, job_id, value())
        if keep is None:
            return None
        slot = kept_slot.KeptSlot(records, job_id, lambda held: self._lives(held, owner, job_id))
        with self._lock:
            abandoned = self._abandoned.pop(job_id, None)
        found = slot.claim(stored, abandoned)  # (another process's link, its keep completed: nothing written)
        if found is not None:
            with self._lock:  # (a copy answered while the store was down is left to expire: a client holds it)
                self._unstored.pop(job_id, None)
            return self._remember(job_id, found)
        blocks = self._written(slot, keep)
        if not self._store.shared(blocks[1]["uri"]):  # in this process's memory only: not for the others
            self._release(slot)
            return self._remember(job_id, blocks)
        try:
            answer = slot.complete(blocks)
        except Exception as exc:
            if not _store_down(exc):
                raise
            if slot.reservation is not None:  # (taken over at once by this process's next keep of the job)
                _bounded(self._lock, self._abandoned, job_id, slot.reservation, self._remembered)
            return self._set_aside(job_id, blocks, exc)
        with self._lock:
            self._unstored.pop(job_id, None)
        if answer is None:  # the record went (or was not reserved): this answer's own, remembered nowhere
            return blocks
        if answer != blocks and unstored is None:  # (a copy answered before is left to expire)
            self._store.drop(blocks[1]["uri"])
        return self._remember(job_id, answer)

    def _written(self, slot: kept_slot.KeptSlot, keep: Callable[[], list[Wire]]) -> list[Wire]:
        """``keep()``'s blocks; the reservation of ``slot`` released when it raises (the data too large)."""
        try:
            return keep()
        except BaseException:
            self._release(slot)
            raise

    @staticmethod
    def _release(slot: kept_slot.KeptSlot) -> None:
        """Release ``slot``'s reservation; the job store down, it is left to go stale (logged by the caller's
        outcome: the keep's own error, or a copy set aside)."""
        try:
            slot.release()
        except Exception as exc:
            if not _store_down(exc):
                raise

    def _unrecorded(self, job_id: str, owner: str | None, value: Callable[[], Any],
                    exc: Exception) -> list[Wire] | None:
        """The blocks of ``job_id``'s data while its record cannot be read or written (``exc``): the copy kept
        for it so before, else one kept now; stored with the record by the first answer once the store is back."""
        blocks = self._unstored_copy(job_id, owner)
        if blocks is not None:
            return blocks
        keep = self._keeping(owner, job_id, value())
        if keep is None:
            return None
        blocks = keep()
        if not self._store.shared(blocks[1]["uri"]):
            return self._remember(job_id, blocks)
        return self._set_aside(job_id, blocks, exc)

    def _set_aside(self, job_id: str, blocks: list[Wire], exc: Exception) -> list[Wire]:
        """Answer ``blocks`` unstored (``exc``: why), the first time logged, until the store takes them."""
        with self._lock:
            known = self._unstored.get(job_id) == blocks
        if not known:
            _bounded(self._lock, self._unstored, job_id, blocks, self._remembered)
            log.warning("job %s: its record could not be read or written (%s: %s); its data is answered through "
                        "a link stored with it once the store answers", job_id, type(exc).__name__, exc)
        return blocks

    def _unstored_copy(self, job_id: str, owner: str | None) -> list[Wire] | None:
        """The copy answered for ``job_id`` while its record could not be written, while the store holds it."""
        with self._lock:
            blocks = self._unstored.get(job_id)
        return blocks if self._lives(blocks, owner, job_id) else None

    def pending(self, job_id: str) -> int:
        """How many answers of job ``job_id`` are keeping its data or waiting for that keep now (0 once they
        ended: the keeps in flight are held only while answers wait for them)."""
        with self._lock:
            flight = self._flights.get(job_id)
            return flight.users if flight is not None else 0

    def _lives(self, blocks: list[Wire] | None, owner: str | None, job_id: str) -> TypeGuard[list[Wire]]:
        """Whether ``blocks`` (stored with the record) link a copy the store holds for ``job_id`` (a keep's
        reservation links none)."""
        return kept_slot.linked(blocks) and self._store.holds(blocks[1]["uri"], owner, job_id)

    def _held(self, job_id: str, owner: str | None) -> list[Wire] | None:
        """The blocks remembered for ``job_id`` while the store holds their link (kept for it), else None."""
        with self._lock:
            blocks = self._blocks.get(job_id)
            if blocks is not None:
                self._blocks.move_to_end(job_id)
        if blocks is None or not self._store.holds(blocks[1]["uri"], owner, job_id):
            return None
        return blocks

    def _remember(self, job_id: str, blocks: list[Wire]) -> list[Wire]:
        _bounded(self._lock, self._blocks, job_id, blocks, self._remembered)
        return blocks

    @contextlib.contextmanager
    def _flight(self, job_id: str) -> Iterator[None]:
        with self._lock:
            flight = self._flights.setdefault(job_id, _Flight())
            flight.users += 1
        try:
            with flight.lock:
                yield
        finally:
            with self._lock:
                flight.users -= 1
                if not flight.users:
                    del self._flights[job_id]

    def _over(self, owner: str | None, job_id: str, size: int) -> bool:
        """Whether ``size`` characters of a job's data are over ``max_inline_bytes`` as it is now."""
        from ..results.sink import ResultSink

        return ResultSink(self._options, self._store, owner, job=job_id).too_big(size)

    def _keeping(self, owner: str | None, job_id: str, value: Any) -> Callable[[], list[Wire]] | None:
        """What keeps ``value`` (its JSON; a text: itself) and gives its blocks, when it is over
        ``max_inline_bytes``; else None (it fits: nothing to keep)."""
        from ..results.convert import parts  # the shaping modules: loaded with the first large answer
        from ..results.sink import ResultSink

        text = value if isinstance(value, str) else jsonenc.dumps(value)
        sink = ResultSink(self._options, self._store, owner, job=job_id)
        if not parts.too_big(sink, len(text)):  # (remembered as the blocks are: the next answer makes nothing)
            _bounded(self._lock, self._fits, job_id, len(text), self._remembered)
            return None
        offload = parts.offload_text if isinstance(value, str) else parts.offload_json
        return functools.partial(offload, text, sink)


def _bounded(lock: threading.Lock, held: OrderedDict[str, Any], key: str, item: Any, most: int) -> None:
    """Put ``item`` under ``key`` in ``held`` (most recent last), forgetting the least recent past ``most``."""
    with lock:
        held[key] = item
        held.move_to_end(key)
        while len(held) > most:
            held.popitem(last=False)


def _store_down(exc: Exception) -> bool:
    """Whether ``exc`` says the job store cannot be read or written now (Redis away, an SQLite file locked past
    its timeout or unreadable), not that something is wrong with the job's data."""
    import sqlite3  # (loaded with the job store's SQLite file, or here by an outage of another store)

    from ...state.errors import StateUnavailable

    return isinstance(exc, (StateUnavailable, sqlite3.Error))
