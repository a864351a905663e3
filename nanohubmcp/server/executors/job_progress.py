"""tqdm bars of a job that runs outside the server's process, relayed to the server as the job's progress.

In the server a tqdm bar reports to the call running in its thread (:mod:`..calls.tqdm_progress`, through
:data:`..calls.progress.CURRENT`). Where a job runs elsewhere — its own process (``processes``), a Dask worker, a
batch job on a compute node — that call is not there: :func:`relaying` puts a :class:`RelayProgress` in its place
for the function's run, which sends each increase over the job's way back to the server (its pipe, its Dask
event topic, its folder), where it becomes the job's progress as a ``ctx.report_progress`` does
(:func:`.remote.deliver`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any, Protocol

from ..calls.progress import CURRENT
from ..calls.tqdm_progress import watch


class Sender(Protocol):
    """The sending half of a job's way back to the server (:class:`.remote.Channel` has it)."""

    def send(self, job_id: str, kind: str, payload: list[Any]) -> None:
        """Send ``("progress", [progress, total, message])``."""


class RelayProgress:
    """Stands in for the call's progress tracker where the job runs: tqdm bars report here, and
    each increase goes to the server through the job's channel."""

    def __init__(self, channel: Sender, job_id: str) -> None:
        self.channel = channel
        self.job_id = job_id
        self.last: float | None = None
        self.finished = False

    def report(
        self, progress: float, total: float | None = None, message: str | None = None, *, source: str = "context"
    ) -> bool:
        if self.finished or (self.last is not None and progress <= self.last):
            return False
        self.last = progress
        self.channel.send(self.job_id, "progress", [progress, total, message])
        return True


@contextlib.contextmanager
def relaying(channel: Sender, job_id: str) -> Iterator[RelayProgress]:
    """Within it, tqdm bars made on this thread report through ``channel`` (tqdm hooked now, or once imported)."""
    relay = RelayProgress(channel, job_id)
    token = CURRENT.set(relay)  # type: ignore[arg-type]  # the tracker's shape
    watch()
    try:
        yield relay
    finally:
        relay.finished = True  # a bar outliving the run (a thread of the function's) sends nothing more
        CURRENT.reset(token)
