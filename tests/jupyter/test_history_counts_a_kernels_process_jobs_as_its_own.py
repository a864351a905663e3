"""``%mcp history`` decides which records are this kernel's by the process that took the call (the
record's ``server``), not by where a job ran: a ``processes`` job's record names the child process in
``where`` (311c2e8), and was listed among "other kernels" records."""

from __future__ import annotations

import os
import socket

from nanohubmcp.jupyter.history_view import history_report, made_here


def record(where: dict[str, object], server: dict[str, object] | None) -> dict[str, object]:
    made = {"id": "r" * 24, "tool": "t", "status": "completed", "started": 0.0, "ended": 1.0, "where": where,
            "code": {"hash": "sha256:" + "0" * 64}, "cache": None}
    if server is not None:
        made["server"] = server
    return made


def test_a_job_run_elsewhere_by_this_kernel_is_its_own_and_a_foreign_one_is_not() -> None:
    here = {"host": socket.gethostname(), "pid": os.getpid()}
    child = record({"host": socket.gethostname(), "pid": os.getpid() + 1, "thread": "MainThread"}, here)
    slurm = record({"host": None, "pid": None, "thread": None, "node": "n1"}, here)
    foreign = record({"host": socket.gethostname(), "pid": os.getpid(), "thread": "x"},
                     {"host": socket.gethostname(), "pid": os.getpid() + 7})
    older = record(dict(here, thread="nanohubmcp-0"), None)  # a record read before `server` existed
    assert [made_here(r) for r in (child, slurm, foreign, older)] == [True, True, False, True]
    report = history_report([child, slurm, foreign, older], "/state")
    assert "1 more record of other kernels" in report
