"""What Slurm's job states and pending reasons mean, said to the client.

The tables of end states (:data:`END_REASONS`) and of the pending reasons that mean a job can never
start as asked (:data:`NEVER_STARTS`), and the error messages the Slurm executor (:mod:`.slurm`)
fails a job with. Pure text: no Slurm command runs here (:mod:`.slurm_watch` asks Slurm).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .job_files import tail
from .slurm_watch import controller_silent

if TYPE_CHECKING:
    from pathlib import Path

    from .slurm_watch import SlurmState

END_REASONS = {
    "TIMEOUT": "reached its time limit",
    "OUT_OF_MEMORY": "ran out of memory",
    "NODE_FAIL": "lost its node (node failure)",
    "CANCELLED": "was cancelled outside this server (scancel)",
    "PREEMPTED": "was preempted",
    "BOOT_FAIL": "could not boot its node",
    "DEADLINE": "missed its deadline",
    "FAILED": "failed",
    "VANISHED": "is known neither to squeue nor to sacct any more",
    "COMPLETED": "completed without a result",
}
NEVER_STARTS = {
    "PartitionConfig": "it asks for more than its partition has (CPUs, memory, GPUs or nodes)",
    "PartitionTimeLimit": "its time limit is longer than its partition allows",
    "BadConstraints": "no node has the features (constraints) it asks for",
    "AccountNotAllowed": "its account may not use its partition",
    "InvalidAccount": "its account is not valid",
    "InvalidQOS": "its QOS is not valid",
    "DependencyNeverSatisfied": "the job it depends on ended in a way that never satisfies it",
}
"""Slurm's pending reasons that mean the job, as asked, can never start (only an administrator's
change of the cluster's configuration would let it): such a job is ``scancel``ed and fails saying
why. Reasons that pass (``Resources``, ``Priority``, ``BeginTime``, ``ReqNodeNotAvail``,
``PartitionDown``, ``PartitionNodeLimit`` — which Slurm also gives while nodes are down or drained
— and the rest) leave it queued, the reason in its status message."""
ASKED = ("partition", "time", "cpus_per_task", "mem", "gpus", "account", "qos", "sbatch")
"""The options a never-starting job's message names (those given)."""
LOG_PREFIXES = ("submitit INFO", "submitit WARNING", "srun: ")
"""Lines of a job's stderr that are submitit's or srun's own: left out of the tail an error message quotes."""


def ended_message(slurm_id: str, state: SlurmState, folder: Path, options: dict[str, Any]) -> str:
    """Why the Slurm job ``slurm_id`` ended (``state``) before the tool returned: the reason in words, the
    options that bear on it, and the tail of its stderr (or, when it left nothing in ``folder``, where
    the job folders must be)."""
    why = END_REASONS.get(state.state, f"ended {state.state}")
    text = f"Slurm job {slurm_id} {why} ({state.state}"
    if state.state == "TIMEOUT" and "time" in options:
        text += f", time limit {options['time']} min"
    if state.state == "OUT_OF_MEMORY" and "mem" in options:
        text += f", mem {options['mem']}"
    if state.exit_code:
        text += f", {exit_words(state.exit_code)}"
    text += ") before the tool returned"
    log = folder / f"{slurm_id}_0_log.err"
    if state.state in ("COMPLETED", "FAILED") and not log.exists():
        # Nothing of the job reached its folder: the node does not see the folder the server wrote.
        return text + (
            f"; it left nothing in {folder}: put the job folders on a filesystem the compute "
            "nodes share (state_dir=, or executor_options={'job_dir': ...})"
        )
    stderr = tail(log, skip=LOG_PREFIXES)
    if not stderr and state.state == "FAILED":  # a Python error leaves its traceback there: this ended otherwise
        return text + (
            "; it wrote nothing to stderr: its process ended without a Python error (an exception leaves a traceback "
            "there), e.g. os._exit(), a signal, or an exit in a setup line"
        )
    return text + stderr_note(stderr)


def exit_words(exit_code: str) -> str:
    """sacct's ``ExitCode`` (``3:0``: the exit status, then the signal that ended it) in words: ``exit code 3``,
    ``signal 9``."""
    status, _, signal = exit_code.partition(":")
    said = [f"exit code {status}"] if status not in ("", "0") else []
    said += [f"signal {signal}"] if signal not in ("", "0") else []
    return ", ".join(said) or f"exit code {exit_code}"


def unpicklable_message(slurm_id: str, folder: Path) -> str:
    """The error of a job whose function returned a value pickle cannot take (submitit failed to write
    its result file, the job then ``FAILED``): pickle's own message, which names the type, and what to
    return instead."""
    err = [line.strip() for line in tail(folder / f"{slurm_id}_0_log.err").splitlines() if "pickl" in line]
    why = f" ({err[-1]})" if err else ""
    return (
        f"the tool returned a value that could not be pickled to send it back from Slurm job {slurm_id}{why}: "
        "return plain data (numbers, strings, lists, dicts, NumPy arrays), or write the result to a file in "
        "the job's folder and return its path"
    )


def never_message(slurm_id: str, reason: str, options: dict[str, Any], unanswered: str = "") -> str:
    """The error of a job cancelled because its pending ``reason`` (a key of :data:`NEVER_STARTS`) means it
    can never start as asked: what it asked for (``time`` in minutes, as the options hold it: ``time 10 min``),
    and what to change. ``unanswered``: what its ``scancel`` said when the controller did not answer (the
    server runs it again)."""
    asked = [f"{key} {options[key]}" + (" min" if key == "time" else "") for key in ASKED if key in options]
    if "partition" not in options:
        asked.insert(0, "the default partition")
    cancelled = "it was cancelled (scancel)"
    if unanswered:
        cancelled = f"its scancel was not answered ({unanswered}), and is run again until Slurm takes it"
    return (
        f"Slurm job {slurm_id} can never start as asked (reason: {reason}): {NEVER_STARTS[reason]}; {cancelled}. "
        f"It asked for: {', '.join(asked)}. Change these executor_options (sinfo and "
        "'scontrol show partition' list what each partition has), or ask the cluster's administrators."
    )


def sbatch_failed_message(said: str, tool: str) -> str:
    """The error of a call whose ``sbatch`` failed (``said``: its error's last lines): the controller not
    answering, which is temporary and says to call again later (after a timed-out answer the job may have been
    queued all the same: how to see it), or ``sbatch`` refusing the job itself."""
    if not controller_silent(said):
        return f"sbatch refused the job: {said}"
    if "timed out" in said.lower():  # the controller may have queued the job before its answer was lost
        started = f" in time (the job may have been queued all the same: squeue --me --name mcp-{tool} lists it)"
    else:
        started = ", so no job was started for this call"
    return (
        f"the Slurm controller did not answer sbatch{started}. This is not a refusal of the job and is "
        "usually temporary (the controller is down, restarting or busy): call the tool again later. "
        f"sbatch said: {said}"
    )


def stderr_note(stderr: str) -> str:
    """The job's stderr tail as the end of an error message (nothing when empty)."""
    return f"\nThe job's stderr ends with:\n{stderr}" if stderr else ""
