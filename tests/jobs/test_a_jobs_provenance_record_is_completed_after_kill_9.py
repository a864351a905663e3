"""A job's provenance record is completed by the server that settles the job, also after a
``kill -9``: the record of a job running when its server was killed says ``working`` until a
restarted server on the same state directory fails the job ("the server stopped while this job
ran"); from then on it says ``failed``, with that message and an end time — read by its owner
through ``resources/read`` in a session of the new server. (The record's id is kept with the job
in the job store; the recorder's map of open records died with the first process.)
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from job_server import Routes, ServerProcess, wait_until

STOPPED = "the server stopped while this job ran"
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


def test_the_record_of_a_job_killed_with_its_server_is_completed_by_the_next(tmp_path: Path) -> None:
    state = tmp_path / "state"
    first = ServerProcess(state, auth=True)
    try:
        alice = first.as_caller("token-of-alice")
        session = alice.session()
        reply = alice.rpc(session, "tools/call", {"name": "wait_for_file",
                                                  "arguments": {"path": str(tmp_path / "never-created")}})
        uri = reply["result"]["_meta"][META]
        job_id = reply["result"]["structuredContent"]["job_id"]
        record = read_record(alice, session, uri)  # a read writes what is pending: the record is on disk
        assert (record["status"], record["ended"]) == ("working", None), record
        wait_until(lambda: poll(alice, session, job_id)["status"] == "running", "the running job")
    finally:
        first.kill()

    killed = time.time()
    second = ServerProcess(state, auth=True)
    try:
        alice = second.as_caller("token-of-alice")
        session = alice.session()
        assert poll(alice, session, job_id) == {"status": "error", "job_id": job_id, "error": STOPPED}
        record = read_record(alice, session, uri)
        assert record["status"] == "failed", record
        assert record["error"] == STOPPED, record
        assert record["ended"] >= killed
        assert record["tool"] == "wait_for_file"
        # The record stays its owner's: another principal gets "not found", as for any unknown URI.
        bob = second.as_caller("token-of-bob")
        assert "error" in bob.rpc(bob.session(), "resources/read", {"uri": uri})
    finally:
        second.stop()
