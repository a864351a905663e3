"""What the client is told of a Slurm job's moves: queued (with the scheduler's reason), running on a node, ended.

Each move is a log message to the calling client (``notifications/message``, as ``ctx.info``), the job's status
message (every process sharing the job store answers it), and the task's ``org.nanohub/slurm`` metadata (the job
id, Slurm's state, reason and node). An end whose tool raised says so beside Slurm's state: submitit catches the
exception, so Slurm records ``COMPLETED`` (``Slurm job 5 ended: COMPLETED (the tool raised an error: ...)``).
It owns no look at Slurm (:mod:`.slurm_watch`) and no job's result (:mod:`.slurm`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .job_side import RAISED
from .slurm_watch import QUEUED, RUNNING, SlurmState

if TYPE_CHECKING:
    from ..calls.context import Context
    from ..jobs.service import Job

__all__ = ["announce", "announce_run", "announce_silence", "publish", "raised_note"]


def raised_note(outcome: tuple[str, Any]) -> str:
    """What an ended job's line adds when its tool raised (Slurm says COMPLETED: submitit caught it)."""
    status, payload = outcome
    if status != "success" or payload[0] != RAISED:
        return ""
    text = " ".join(str(payload[1]).split())
    return f" (the tool raised an error: {text[:200]}{'...' if len(text) > 200 else ''})"


def announce(context: Context | None, job: Job, slurm_id: str, state: SlurmState, told: object,
              note: str = "") -> None:
    """Tell the client (and the task's metadata) where the Slurm job is now (``note``: added to an end's line)."""
    text = where_it_is(slurm_id, state, note)
    job.status_message = text
    meta = publish(context, job, slurm_id, state)
    if job.store is not None:  # every process sharing the store answers it so
        job.store.note(job)
    if context is not None:
        context.info(text, slurm=meta)


ENDING = {"COMPLETING": "being ended by Slurm", "STAGE_OUT": "staging its files out", "SIGNALING": "being signalled",
          "RESIZING": "being resized"}
"""What a job in one of Slurm's other running states is doing (``COMPLETING``: at its end, or its time limit's)."""


def where_it_is(slurm_id: str, state: SlurmState, note: str = "") -> str:
    """The line saying where the Slurm job is: queued (with the reason), running (on its node), ended."""
    if state.kind == QUEUED:  # "queued ...": get_job_result answers it queued (jobs.record.queued_elsewhere)
        return f"queued at Slurm as job {slurm_id}" + (f" (reason: {state.reason})" if state.reason else "")
    if state.kind == RUNNING:  # RUNNING, or ending (COMPLETING at a time limit): said as Slurm says it
        doing = "is running"
        if state.state != "RUNNING":
            why = f", reason: {state.reason}" if state.reason else ""
            doing = f"is {ENDING.get(state.state, state.state.lower())} ({state.state}{why})"
        return f"Slurm job {slurm_id} {doing}" + (f" on node {state.node}" if state.node else "")
    return f"Slurm job {slurm_id} ended: {state.state}{note}"


def announce_silence(context: Context | None, job: Job, slurm_id: str, state: SlurmState | None, silent: str) -> None:
    """Tell the client that Slurm does not answer (``silent``: what the command said), so the job is as last seen
    (``state``; None: not seen yet): temporary, the server goes on looking. A warning, and the status message."""
    last = f"{where_it_is(slurm_id, state)} (as last seen)" if state is not None else f"Slurm job {slurm_id}"
    text = f"{last}; Slurm does not answer now, the server goes on looking ({silent})"
    job.status_message = text
    if job.store is not None:
        job.store.note(job)
    if context is not None:
        context.warning(text)


def publish(context: Context | None, job: Job, slurm_id: str, state: SlurmState) -> dict[str, str]:
    """Set the task's ``org.nanohub/slurm`` metadata to ``state`` (returned)."""
    meta = {"job_id": slurm_id, "state": state.state, "reason": state.reason, "node": state.node}
    if context is None:  # a job taken back after a restart: the task's metadata is the job's own
        job.meta = {**(job.meta or {}), "org.nanohub/slurm": meta}
    else:
        context.set_task_metadata(slurm=meta)
    return meta


def announce_run(
    context: Context | None, job: Job, slurm_id: str, node: str, told: tuple[str, str, str] | None
) -> tuple[str, str, str] | None:
    """Announce that the job ran on ``node`` when it ended before any look saw it running (what
    was told then)."""
    if not node or (told is not None and told[0] != QUEUED):
        return told
    announce(context, job, slurm_id, SlurmState("RUNNING", "", node), told)
    return (RUNNING, "", node)
