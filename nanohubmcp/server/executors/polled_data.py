"""A done job's data over ``max_inline_bytes`` in the answer of an MCP poll (``get_job_result``): kept as a
resource once per job and linked, as a direct MCP call of the tool keeps and links it.

A job's record holds its data whole (a REST poll reads the value: :func:`~..results.sink.call_sink`); an MCP
client polling it gets the blocks a direct call answers for such data instead — a note with a preview of its
first characters, then a ``resource_link`` (``result.json``, or ``result.txt`` for a text) — so that large data
stays out of the model's context. The data is kept owned by the job's owner (its principal, else its session)
on the first such poll; later polls answer the same blocks (the same URI), remembered here per job id for the
:data:`REMEMBERED` most recently polled jobs, kept again when the store dropped it to make room. What this
module does not do: decide whether a poll is over MCP (the caller's ``Context.inline_limit``), nor shape the
poll's answer (:mod:`.job_tools`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Final

from ...protocol import jsonenc
from ..results.owners import PRINCIPAL_OWNER, SESSION_OWNER

if TYPE_CHECKING:
    from ..jobs.record import Job
    from ..results.options import ResultOptions
    from ..results.store import ResultStore

__all__ = ["REMEMBERED", "PolledData", "job_owner"]

Wire = dict[str, Any]

REMEMBERED: Final = 256
"""How many jobs' kept data :class:`PolledData` remembers (the least recently polled is forgotten first:
a poll of a forgotten job keeps its data again, under a new URI)."""


def job_owner(job: Job) -> str | None:
    """The owner key (:mod:`..results.owners`) of what ``job`` keeps: its principal, else its session's key,
    else None (a job a REST call without authorization started: readable to anyone holding the link)."""
    if job.principal is not None:
        return f"{PRINCIPAL_OWNER}{job.principal}"
    return f"{SESSION_OWNER}{job.owner}" if job.owner is not None else None


class PolledData:
    """The kept data of the jobs polled over MCP: one per server's ``get_job_result`` tool; thread-safe."""

    def __init__(self, remembered: int = REMEMBERED) -> None:
        self._remembered = remembered
        self._blocks: OrderedDict[str, list[Wire]] = OrderedDict()
        self._lock = threading.Lock()

    def kept(self, store: ResultStore, options: ResultOptions, job: Job, value: Any) -> list[Wire] | None:
        """``[note, resource_link]`` for ``job``'s polled ``value`` when its JSON (a text: the text itself) is
        longer than ``options.max_inline_bytes`` characters, else None (the value goes in the answer).

        Blocking (it may write the data to the results folder): call it off the event loop.

        Raises:
            ResultTooLarge: the data is larger than the store keeps.
        """
        from ..results.convert import parts  # the shaping modules: loaded with the first large poll
        from ..results.sink import ResultSink

        text = value if isinstance(value, str) else jsonenc.dumps(value)
        owner = job_owner(job)
        sink = ResultSink(options, store, owner)
        if not parts.too_big(sink, len(text)):
            return None
        with self._lock:
            blocks = self._blocks.get(job.id)
            if blocks is not None:
                self._blocks.move_to_end(job.id)
        if blocks is not None and store.evicted(blocks[1]["uri"], owner) is None:
            return blocks
        blocks = parts.offload_text(text, sink) if isinstance(value, str) else parts.offload_json(text, sink)
        with self._lock:
            self._blocks[job.id] = blocks
            while len(self._blocks) > self._remembered:
                self._blocks.popitem(last=False)
        return blocks
