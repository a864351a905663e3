"""A job whose record is missing when it ends — never written (its server was killed before the writer
wrote it), or expired while the job ran — gets a record made from what the job store kept: the job's tool,
owner, arguments (their secrets already replaced) and start, completed with its end and where it ran (a
Slurm job's node); its RO-Crate says its code is not known. Made by the real recorder and record store
(SQLite), read as its owner reads it: a session's record by that session's key only."""

from __future__ import annotations

import json
import time
from pathlib import Path

from nanohubmcp.server.jobs.record import Job
from nanohubmcp.server.provenance.crate import write_crate
from nanohubmcp.server.provenance.layer import Recorder
from nanohubmcp.server.provenance.records import ProvenanceStore
from nanohubmcp.server.results.owners import SESSION_OWNER
from nanohubmcp.state.base import session_key


def test_a_sessions_lost_job_record_is_made_from_its_job(tmp_path: Path) -> None:
    store = ProvenanceStore(3600.0, lambda: str(tmp_path))
    key = session_key("the-session-id")
    created = time.time() - 60
    job = Job(id="job-1", tool="simulate", owner=key, created=created, executor="slurm",
              arguments={"steps": 10, "license": "[secret: not stored]"}, provenance_id="lostrecord000000000000001",
              meta={"org.nanohub/slurm": {"job_id": "4242", "node": "node7", "state": "COMPLETED"}})
    job.status, job.finished_at = "completed", time.time()
    job.result = {"content": [{"type": "text", "text": "42"}], "isError": False}
    Recorder(store, {}).job_finished(job)  # (a job rebuilt from the store: no request, its record's id kept)
    assert job.result["_meta"]["io.nanohub/provenance"] == "nanohubmcp://provenance/lostrecord000000000000001"

    record = store.get("lostrecord000000000000001", SESSION_OWNER + key)
    assert record is not None
    assert (record["status"], record["tool"], record["made_from_job"], record["job_id"]) == (
        "completed", "simulate", True, "job-1")
    assert record["arguments"] == {"steps": 10, "license": "[secret: not stored]"}
    assert (record["started"], record["ended"]) == (created, job.finished_at)
    assert (record["executor"], record["where"]["node"], record["where"]["slurm_job_id"]) == ("slurm", "node7", "4242")
    assert (record["session"], record["principal"]) == (key[:12], None)
    assert record["result"] == {"content": [{"type": "text", "text": "42"}], "isError": False}
    assert store.get("lostrecord000000000000001", SESSION_OWNER + session_key("another-session")) is None
    # Its crate says the code is not known (its record names none), rather than "None.None".
    crate = json.loads((write_crate(record, None, tmp_path / "crate") / "ro-crate-metadata.json").read_text())
    code = next(item for item in crate["@graph"] if "SoftwareSourceCode" in item.get("@type", []))
    assert code["description"].startswith("not known: the call's own record was missing when its job ended"), code
    store.close()
