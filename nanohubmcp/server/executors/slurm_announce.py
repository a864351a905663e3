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

__all__ = ["announce", "announce_run", "publish", "raised_note"]


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
    if state.kind == QUEUED:  # "queued ...": get_job_result answers it queued (jobs.record.queued_elsewhere)
        text = f"queued at Slurm as job {slurm_id}" + (f" (reason: {state.reason})" if state.reason else "")
    elif state.kind == RUNNING:
        text = f"Slurm job {slurm_id} is running" + (f" on node {state.node}" if state.node else "")
    else:
        text = f"Slurm job {slurm_id} ended: {state.state}{note}"
    job.status_message = text
    meta = publish(context, job, slurm_id, state)
    if job.store is not None:  # every process sharing the store answers it so
        job.store.note(job)
    if context is not None:
        context.info(text, slurm=meta)


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
