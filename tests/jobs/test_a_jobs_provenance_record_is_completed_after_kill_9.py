"""A job's provenance record is completed by the server that settles the job, also after a
``kill -9``: the record of a job running when its server was killed says ``working`` until a
restarted server on the same state directory fails the job ("the server stopped while this job
ran"); from then on it says ``failed``, with that message and an end time — read by its owner
through ``resources/read`` in a session of the new server. (The record's id is kept with the job
in the job store; the recorder's map of open records died with the first process.)

A record the killed server never wrote (its writer gathers records for up to a second, and the first
record of a process also waits for the table of installed packages) is made by the server that settles
the job, from what the job store kept: the job's result, or its error, never names a record that finds
nothing (a Slurm job taken back by a restarted server delivered its result while its record URI read
"not found": the CI flake of tests/hpc/test_slurm_jobs_outlive_the_server...).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from job_server import Routes, ServerProcess, wait_until

STOPPED = "the server stopped while this job ran: it did not complete; it may be run again"
META = "io.nanohub/provenance"


def read_record(caller: Routes, session: str, uri: str) -> dict[str, Any]:
    reply = caller.rpc(session, "resources/read", {"uri": uri})
    assert "result" in reply, reply
    record: dict[str, Any] = json.loads(reply["result"]["contents"][0]["text"])
    return record


def poll(caller: Routes, session: str, job_id: str) -> dict[str, Any]:
    reply = caller.rpc(session, "tools/call", {"name": "get_job_result", "arguments": {"job_id": job_id}})
    status: dict[str, Any] = reply["result"]["structuredContent"]
    return status


def killed_while_running(state: Path, arguments: dict[str, Any]) -> tuple[str, str]:
    """Alice starts ``wait_for_file`` on a server, which is killed (``kill -9``) once the job runs: the
    record's URI and the job's id. The record read then says ``working`` (a read writes what is pending)."""
    first = ServerProcess(state, auth=True)
    try:
        alice = first.as_caller("token-of-alice")
        session = alice.session()
        reply = alice.rpc(session, "tools/call", {"name": "wait_for_file", "arguments": arguments})
        uri, job_id = reply["result"]["_meta"][META], reply["result"]["structuredContent"]["job_id"]
        record = read_record(alice, session, uri)
        assert (record["status"], record["ended"]) == ("working", None), record
        wait_until(lambda: poll(alice, session, job_id)["status"] == "running", "the running job")
    finally:
        first.kill()
    return uri, job_id


def settled(server: ServerProcess, job_id: str, uri: str) -> dict[str, Any]:
    """The record of ``job_id`` read by alice on the restarted ``server``, once her poll settled the job."""
    alice = server.as_caller("token-of-alice")
    session = alice.session()
    assert poll(alice, session, job_id) == {"status": "error", "job_id": job_id, "error": STOPPED}
    return read_record(alice, session, uri)


def test_the_record_of_a_job_killed_with_its_server_is_completed_by_the_next(tmp_path: Path) -> None:
    state = tmp_path / "state"
    uri, job_id = killed_while_running(state, {"path": str(tmp_path / "never-created")})  # (the record on disk)
    killed = time.time()
    second = ServerProcess(state, auth=True)
    try:
        record = settled(second, job_id, uri)
        assert record["status"] == "failed", record
        assert record["error"] == STOPPED, record
        assert record["ended"] >= killed
        assert record["tool"] == "wait_for_file"
        assert "made_from_job" not in record  # the record the first server wrote, completed
        # The record stays its owner's: another principal gets "not found", as for any unknown URI.
        bob = second.as_caller("token-of-bob")
        assert "error" in bob.rpc(bob.session(), "resources/read", {"uri": uri})
    finally:
        second.stop()


def test_a_job_whose_record_the_killed_server_never_wrote_gets_one_made_from_the_job(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    # The first server cannot open provenance.sqlite3 (a folder of that name): it keeps its records in
    # memory, so the kill loses the job's record for sure, as a kill before the writer's first write does.
    (state / "provenance.sqlite3").mkdir()
    arguments = {"path": str(tmp_path / "never-created")}
    uri, job_id = killed_while_running(state, arguments)  # (the record in the first process's memory only)
    (state / "provenance.sqlite3").rmdir()

    second = ServerProcess(state, auth=True)
    try:
        record = settled(second, job_id, uri)
        assert (record["status"], record["error"], record["made_from_job"]) == ("failed", STOPPED, True), record
        assert (record["tool"], record["arguments"], record["job_id"]) == ("wait_for_file", arguments, job_id)
        assert record["principal"] == "alice"
        assert record["started"] < record["ended"]
        assert record["code"]["hash"] is None  # what only the call knew is not known
        bob = second.as_caller("token-of-bob")
        assert "error" in bob.rpc(bob.session(), "resources/read", {"uri": uri})
    finally:
        second.stop()
