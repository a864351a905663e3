"""One caller's waiting batch jobs keep at most ``max_kept_bytes_per_owner`` bytes of inputs in their folders.

A ``submit`` or ``slurm`` job's folder keeps the call's inputs whole until the job ends (hours in a queue), while
the job store keeps 64 KiB of them: without a bound, one principal's 1,000 jobs of 16 MiB were ~16 GB in
``job_dir``, a quota'd space every user's jobs share (review R40-4, probe p23: three 4 MiB calls left three
4.2 MB ``_submitted.pkl``, counted by no bound). With the stand-in ``submit`` and two principals: alice's calls
past her budget are refused (REST 429, an ``isError`` result over MCP) saying what to do, nothing made; bob's
are taken; once alice's jobs end, her budget is free again. On the real single-node Slurm, a server restarted
while alice's job waits counts what its folder holds (submitit's ``_submitted.pkl``) against her again.
"""

from __future__ import annotations

from pathlib import Path

from hpc.held_submit import add_held
from jobs.job_server import TOKENS, Routes, wait_until
from support import script_server, serve

from nanohubmcp import MCPServer, StaticTokenVerifier

BUDGET = 4000
DATA = "d" * 1500
"""About 1,530 bytes of arguments (pickled, with `go`): two such jobs fit in :data:`BUDGET`, a third does not."""


def test_past_its_budget_a_callers_batch_job_is_refused_until_one_ends(standin_submit: Path, tmp_path: Path) -> None:
    server = MCPServer("folder-budget", state_dir=str(tmp_path), job_executor="submit",
                       executor_options={"local": True}, max_kept_bytes_per_owner=BUDGET,
                       auth=StaticTokenVerifier(TOKENS))

    add_held(server)

    with serve(server) as url:
        port = int(url.rsplit(":", 1)[1].strip("/"))
        alice, bob = Routes(port, "token-of-alice"), Routes(port, "token-of-bob")
        go = tmp_path / "go"
        started = [alice.rest_start("held", {"data": DATA, "go": str(go)}) for _ in range(2)]
        assert [status for status, _ in started] == [202, 202], started
        jobs = tmp_path / "submit-jobs"
        wait_until(lambda: jobs.is_dir() and len(list(jobs.iterdir())) == 2, "both jobs' folders")

        status, body = alice.rest_start("held", {"data": DATA, "go": str(go)})
        assert status == 429, body
        text = str(body)
        assert "at most 4000 bytes of waiting jobs' inputs per caller" in text, text
        assert "(option max_kept_bytes_per_owner)" in text, text
        assert "Wait for a job to end or pass large data by file/link" in text, text
        assert len(list(jobs.iterdir())) == 2  # the refused call made no job

        session = alice.session()
        answer = alice.rpc(session, "tools/call", {"name": "held", "arguments": {"data": DATA, "go": str(go)}})
        assert answer["result"]["isError"] is True, answer  # as a full max_jobs_per_owner share answers
        assert "waiting jobs' inputs per caller" in answer["result"]["content"][0]["text"], answer

        status, body = bob.rest_start("held", {"data": DATA, "go": str(go)})  # another caller's own budget
        assert status == 202, body

        go.write_text("go")
        for _, handle in started:
            wait_until(lambda job=handle["job_id"]: alice.rest_poll(job)[1].get("status") == "done",
                       "alice's job to end", 60)
        status, body = alice.rest_start("held", {"data": DATA, "go": str(go)})  # her jobs ended: room again
        assert status == 202, body


BIG = "b" * 20_000
"""A Slurm job's arguments: one fits in the Slurm server's budget (30,000 bytes), two do not."""
SLURM_SERVER = """
import sys, time
from pathlib import Path
from nanohubmcp import MCPServer, StaticTokenVerifier

server = MCPServer("folder-budget-slurm", state_dir=sys.argv[1], job_executor="slurm", max_kept_bytes_per_owner=30_000,
                   auth=StaticTokenVerifier({"token-of-alice": "alice", "token-of-bob": "bob"}))

@server.async_tool()
def waiting(data: str, go: str) -> int:
    \"\"\"Runs on the node until go exists.\"\"\"
    deadline = time.monotonic() + 120
    while not Path(go).exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return len(data)

server.run(host="127.0.0.1", port=0)
"""


def test_a_restarted_server_counts_a_taken_back_slurm_jobs_inputs_again(slurm_cluster: str, tmp_path: Path) -> None:
    go, state = tmp_path / "go", tmp_path / "state"
    with script_server(SLURM_SERVER, str(state), directory=tmp_path) as first:
        alice = Routes(int(first.url.rsplit(":", 1)[1].strip("/")), "token-of-alice")
        status, handle = alice.rest_start("waiting", {"data": BIG, "go": str(go)})
        assert status == 202, handle
        folder = state / "slurm-jobs" / handle["job_id"]
        wait_until(lambda: list(folder.glob("*_submitted.pkl")), "sbatch to take the job")
    # The server is gone; the job waits in Slurm, its pickled call in its folder.
    assert sum(path.stat().st_size for path in folder.glob("*_submitted.pkl")) > len(BIG)

    with script_server(SLURM_SERVER, str(state), directory=tmp_path) as second:
        port = int(second.url.rsplit(":", 1)[1].strip("/"))
        alice, bob = Routes(port, "token-of-alice"), Routes(port, "token-of-bob")
        assert alice.rest_poll(handle["job_id"])[1]["status"] == "running"  # taken back
        status, body = alice.rest_start("waiting", {"data": BIG, "go": str(go)})
        assert status == 429, body
        assert "at most 30000 bytes of waiting jobs' inputs per caller" in str(body), body
        status, other = bob.rest_start("waiting", {"data": BIG, "go": str(go)})
        assert status == 202, other

        go.write_text("go")
        for caller, job_id in ((alice, handle["job_id"]), (bob, other["job_id"])):
            wait_until(lambda caller=caller, job_id=job_id: caller.rest_poll(job_id)[1].get("status") == "done",
                       "the job to end", 90)
        status, body = alice.rest_start("waiting", {"data": BIG, "go": str(go)})
        assert status == 202, body
        done = wait_until(lambda: alice.rest_poll(body["job_id"])[1].get("status") == "done" and
                          alice.rest_poll(body["job_id"])[1], "alice's last job to end", 90)
        assert done["result"] == len(BIG)
