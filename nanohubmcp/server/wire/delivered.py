"""What a reader of a session's event log has delivered, so a copy of an entry never reaches its client.

The Redis event log may hold an entry twice: a batch the writer sent timed out against a frozen Redis that ran it
once it resumed, and the writer tried the batch again (:mod:`~nanohubmcp.state.redis_events`). Each copy has its own
entry id, but the same fields, which number the message:

- a POST response stream's entries by their producer's event id (``e``: ``<stream>.<seq>``, from 1, one producer);
- the session's stream of unrelated messages (``g``, written by every process) by the writing process (``o``) and
  that process's number (``n``, :data:`~nanohubmcp.state.base.NUMBER`), increasing in the log per process.

The one rule: an entry whose number is at or below the last this reader delivered (for ``g``: of the same process)
is skipped. A POST stream's reader starts from the client's ``Last-Event-ID``. A ``g`` reader resuming after a
``Last-Event-ID`` (a log position) starts from the highest number of each process among the log's entries up to that
position (:meth:`~nanohubmcp.state.base.SharedState.numbers_upto`: the client got them all on its earlier
connection), so a copy written after the position of an entry the client got before it is skipped too; one
continuing on the same process without a ``Last-Event-ID`` goes on from its last reader's record. An entry without a
number (a session's end, an older writer's) is always new. The record is one number per writing process.
"""

from __future__ import annotations

from ...state.base import NUMBER, Fields


class Delivered:
    """The last message a reader of one stream's log delivered (module docstring).

    Args:
        after_seq: the POST stream's sequence number the client already has (its ``Last-Event-ID``; 0: none).
    """

    __slots__ = ("by_process", "seq")

    def __init__(self, after_seq: int = 0) -> None:
        self.seq = after_seq
        """The POST stream's last sequence number delivered (the client's ``Last-Event-ID`` at first)."""
        self.by_process: dict[str, int] = {}
        """The ``g`` stream's last number delivered, by writing process."""

    def knows(self, numbers: dict[str, int]) -> None:
        """The client has the ``g`` stream's entries up to ``numbers`` (the highest of each writing process)."""
        for process, number in numbers.items():
            self.by_process[process] = max(number, self.by_process.get(process, 0))

    def new(self, fields: Fields, seq: int | None) -> bool:
        """Whether the entry with ``fields`` (``seq``: its POST stream sequence number; None on the ``g`` stream) is
        above what was delivered, noting it as delivered if so (the caller delivers it)."""
        if seq is not None:
            if seq <= self.seq:
                return False
            self.seq = seq
            return True
        process, number = fields.get("o"), fields.get(NUMBER, "")
        if process is None or not number.isdigit():
            return True
        if int(number) <= self.by_process.get(process, 0):
            return False
        self.by_process[process] = int(number)
        return True
