"""A Slurm job in one of Slurm's other running states is said as Slurm says it, not "running" (trial78 NIT: at its
time limit the client read ``Slurm job 596 is running on node vm`` while the metadata said ``COMPLETING``, reason
``TimeLimit``: Slurm was already killing it). The line is the job's status message and the client's log line alike
(``slurm_announce.announce``); a job seen ``COMPLETING`` on the real cluster lasts about ``KillWait`` (2 s), too
short to catch for sure between two looks, so the line is made here from the state a look reads."""

from __future__ import annotations

import pytest

from nanohubmcp.server.executors.slurm_announce import announce
from nanohubmcp.server.executors.slurm_watch import SlurmState
from nanohubmcp.server.jobs.record import Job


@pytest.mark.parametrize(("state", "said"), [
    (SlurmState("COMPLETING", "TimeLimit", "vm"),
     "Slurm job 596 is being ended by Slurm (COMPLETING, reason: TimeLimit) on node vm"),
    (SlurmState("COMPLETING", "", "vm"), "Slurm job 596 is being ended by Slurm (COMPLETING) on node vm"),
    (SlurmState("STAGE_OUT", "", "vm"), "Slurm job 596 is staging its files out (STAGE_OUT) on node vm"),
    (SlurmState("RUNNING", "", "vm"), "Slurm job 596 is running on node vm"),
])
def test_the_line_says_slurms_state(state: SlurmState, said: str) -> None:
    job = Job("j" * 32, "endless", "session-key")
    announce(None, job, "596", state, None)
    assert job.status_message == said
    assert job.meta["org.nanohub/slurm"] == {"job_id": "596", "state": state.state, "reason": state.reason,
                                             "node": "vm"}
