"""A ``Secret`` argument of an ``@async_tool`` call is never written to the job store: the record
keeps its name with a marker, the function still gets the value.

Found by a fresh-user trial: the value sat in plain text in ``jobs.sqlite3`` (and in the Redis job
key with ``state_url``) for the job's whole lifetime, across restarts, while the docs promise a
Secret is never stored (provenance, cache and logs already kept it out).
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

from nanohubmcp import MCPServer, Secret

VALUE = "s3cret-value-0123456789"


def test_the_job_record_keeps_the_name_not_the_value(tmp_path: Path) -> None:
    server = MCPServer("secret-jobs", state_dir=str(tmp_path))
    seen: list[str] = []

    @server.async_tool()
    def fetch(dataset: str, token: Secret = "") -> str:
        """Fetch a dataset with an access token."""
        seen.append(token)
        return dataset

    server.start(port=0)
    try:
        handle = server.call("fetch", {"dataset": "bands", "token": VALUE})
        job_id = handle["structuredContent"]["job_id"]
        deadline = time.monotonic() + 30
        while (answer := server.call("get_job_result", {"job_id": job_id}))["structuredContent"]["status"] != "done":
            assert time.monotonic() < deadline, answer
            time.sleep(0.02)
    finally:
        server.stop()
    assert seen == [VALUE]  # the function got it
    files = [p for p in tmp_path.iterdir() if p.name.startswith("jobs.sqlite3")]
    assert files
    for path in files:
        assert VALUE.encode() not in path.read_bytes(), path.name
    db = sqlite3.connect(tmp_path / "jobs.sqlite3")
    try:
        (arguments,) = db.execute("SELECT arguments FROM jobs WHERE id = ?", (job_id,)).fetchone()
    finally:
        db.close()
    assert json.loads(arguments) == {"dataset": "bands", "token": "[secret: not stored]"}
