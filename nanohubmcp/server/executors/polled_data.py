"""A done job's data over ``max_inline_bytes`` in an MCP answer of the job (``get_job_result``, ``tasks/result``,
the tasks extension's ``tasks/get``): kept as a resource once per job and linked, as a direct MCP call of the tool
keeps and links it.

A job's record holds its data whole (a REST poll reads the value: :func:`~..results.sink.call_sink`); an MCP
client reading it gets the blocks a direct call answers for such data instead — a note with a preview of its
first characters, then a ``resource_link`` (``result.json``, or ``result.txt`` for a text) — so that large data
stays out of the model's context. The data is kept owned by the job's owner (its principal, else its session),
naming the job (whoever may read the job by its id reads it too: :mod:`..handlers.kept_reader`), on the first
such answer, and those blocks are stored with the job's record (its ``kept_data``:
:meth:`~..jobs.stores.JobBackend.keep_data`), so later answers, by any method on any process sharing the job
store, give the same blocks (the same URI) for as long as the job's record lives; they are kept again when the
result store no longer holds their link (or holds one an earlier version kept, naming no job: dropped then).
Each process remembers the blocks of the :data:`REMEMBERED` most recently read jobs, so that a poll does not
read the record again. Two first answers of one job at the same moment keep it once: in one process the second
waits for the first's keep; across processes each keeps a copy, the first stored with the record wins, and the
others drop theirs and answer the winner's.
What this module does not do: decide whether an answer is over MCP (the caller's ``Context.inline_limit``,
``tasks/result``), nor shape the answer (:mod:`.job_tools`, :mod:`..handlers.answered_result`).
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Final

from ...protocol import jsonenc
from ..results.owners import PRINCIPAL_OWNER, SESSION_OWNER

if TYPE_CHECKING:
    from ..jobs.record import Job
    from ..jobs.stores import JobBackend
    from ..results.options import ResultOptions
    from ..results.store import ResultStore

__all__ = ["REMEMBERED", "PolledData", "job_owner"]

Wire = dict[str, Any]

REMEMBERED: Final = 256
"""How many jobs' kept data :class:`PolledData` remembers in this process (the least recently read is forgotten
first: an answer of a forgotten job reads it from the job's record)."""


def job_owner(job: Job) -> str | None:
    """The owner key (:mod:`..results.owners`) of what ``job`` keeps: its principal, else its session's key,
    else None (a job a REST call without authorization started: readable to anyone holding the link)."""
    if job.principal is not None:
        return f"{PRINCIPAL_OWNER}{job.principal}"
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
        self._flights: dict[str, _Flight] = {}
        self._lock = threading.Lock()

    def kept(self, job: Job, value: Callable[[], Any]) -> list[Wire] | None:
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
        with self._flight(job.id):  # one first keep per job: a second answer waits here, then reads its blocks
            blocks = self._held(job.id, owner)
            if blocks is not None:
                return blocks
            stored = self._stored(job.id)  # (kept by another process, or by this one and forgotten here)
            if stored is not None and self._store.holds(stored[1]["uri"], owner, job.id):
                return self._remember(job.id, stored)
            blocks = self._keep(owner, job.id, value())
            if blocks is None:
                return None
            held = self._records().keep_data(job.id, blocks, stored)
            if held is None:  # the record went meanwhile: this answer's own, remembered nowhere
                return blocks
            if held != blocks:  # another process's keep was stored first: this copy goes, the answer is its
                self._store.drop(blocks[1]["uri"])
            elif stored is not None:  # the stale copy this one replaced (one naming no job: still held) goes
                self._store.drop(stored[1]["uri"])
            return self._remember(job.id, held)

    def pending(self, job_id: str) -> int:
        """How many answers of job ``job_id`` are keeping its data or waiting for that keep now (0 once they
        ended: the keeps in flight are held only while answers wait for them)."""
        with self._lock:
            flight = self._flights.get(job_id)
            return flight.users if flight is not None else 0

    def _held(self, job_id: str, owner: str | None) -> list[Wire] | None:
        """The blocks remembered for ``job_id`` while the store holds their link (kept for it), else None."""
        with self._lock:
            blocks = self._blocks.get(job_id)
            if blocks is not None:
                self._blocks.move_to_end(job_id)
        if blocks is None or not self._store.holds(blocks[1]["uri"], owner, job_id):
            return None
        return blocks

    def _stored(self, job_id: str) -> list[Wire] | None:
        """The blocks stored with ``job_id``'s record, else None (none yet, or no record)."""
        rows = self._records().summaries([job_id], ("id", "kept_data"))
        return rows[0].get("kept_data") if rows else None

    def _remember(self, job_id: str, blocks: list[Wire]) -> list[Wire]:
        with self._lock:
            self._blocks[job_id] = blocks
            self._blocks.move_to_end(job_id)
            while len(self._blocks) > self._remembered:
                self._blocks.popitem(last=False)
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

    def _keep(self, owner: str | None, job_id: str, value: Any) -> list[Wire] | None:
        from ..results.convert import parts  # the shaping modules: loaded with the first large answer
        from ..results.sink import ResultSink

        text = value if isinstance(value, str) else jsonenc.dumps(value)
        sink = ResultSink(self._options, self._store, owner, job=job_id)
        if not parts.too_big(sink, len(text)):
            return None
        return parts.offload_text(text, sink) if isinstance(value, str) else parts.offload_json(text, sink)
