"""The SQLite job store itself: concurrent progress updates are all counted (none lost), jobs
belong to their principal across a restart, the store is bounded (jobs in total, per owner,
result size) and refuses with a message saying which limit, expired jobs are purged from the
file, ``job_store="memory"`` writes nothing, and the default location follows the documented
order.

Issue 16, "Done when": 1,000 jobs through the store with progress updates and no lost update
(counted). Issue 13: jobs capped per owner and in total.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from nanohubmcp.errors import JobLimitReached, UnknownComponent
from nanohubmcp.server.jobs import service as jobmod
from nanohubmcp.server.wire.state_dir import resolve_state_dir

UPDATES_PER_JOB = 10
THREADS = 4


def test_a_thousand_jobs_with_concurrent_progress_lose_no_update(tmp_path: Path) -> None:
    store = jobmod.JobStore(name="counted", state_dir=tmp_path)
    jobs = [store.create("work", None, arguments={"i": i}) for i in range(1000)]
    errors: list[BaseException] = []

    def report(share: list[jobmod.Job]) -> None:
        try:
            for step in range(1, UPDATES_PER_JOB + 1):
                for job in share:
                    store.progress(job.id, step, UPDATES_PER_JOB, f"step {step}")
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=report, args=(jobs[k::THREADS],)) for k in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors
    for job in jobs:
        job.finish(jobmod.COMPLETED, result={"content": [{"type": "text", "text": job.id}]})

    db = sqlite3.connect(tmp_path / "jobs.sqlite3")
    counted, total_rows, last = db.execute(
        "SELECT sum(progress_updates), count(*), sum(progress = ? AND progress_message = ?) FROM jobs",
        (UPDATES_PER_JOB, f"step {UPDATES_PER_JOB}")).fetchone()
    assert (counted, total_rows, last) == (1000 * UPDATES_PER_JOB, 1000, 1000)
    assert db.execute("SELECT count(*) FROM jobs WHERE status = 'completed'").fetchone()[0] == 1000


def test_a_principals_job_is_theirs_only_before_and_after_a_restart(tmp_path: Path) -> None:
    first = jobmod.JobStore(name="owned", state_dir=tmp_path)
    job = first.create("work", "session-a", principal="alice")
    job.finish(jobmod.COMPLETED, result={"content": [{"type": "text", "text": "alice's"}]})
    assert first.get(job.id, "session-a", "alice") is job
    for owner, principal in (("session-a", "bob"), ("session-a", None), ("session-b", "alice")):
        with pytest.raises(UnknownComponent):
            first.get(job.id, owner, principal)

    # While the first store's run serves, a second one on the same directory (another process)
    # leaves the job its session's; once the run ends, sessions are gone and the id is the capability.
    again = jobmod.JobStore(name="owned", state_dir=tmp_path)
    with pytest.raises(UnknownComponent):
        again.get(job.id, "session-new", "alice")
    first.end_run()  # the server stops
    assert again.get(job.id, "session-new", "alice").result == job.result
    for principal in ("bob", None):
        with pytest.raises(UnknownComponent):
            again.get(job.id, "session-new", principal)


def test_a_full_store_refuses_new_jobs_saying_which_limit(tmp_path: Path) -> None:
    store = jobmod.JobStore(name="bounded", state_dir=tmp_path, max_jobs=3, max_jobs_per_owner=2)
    store.create("work", "s1")
    store.create("work", "s1")
    with pytest.raises(JobLimitReached, match=r"at most 2 .*max_jobs_per_owner"):
        store.create("work", "s1")
    store.create("work", "s2")
    with pytest.raises(JobLimitReached, match=r"at most 3 .*max_jobs\)"):
        store.create("work", "s3")


@pytest.mark.anyio
async def test_a_refused_job_reaches_the_client_as_a_tool_error_and_rest_as_429(tmp_path: Path) -> None:
    import json
    import urllib.error
    import urllib.request

    from support import mcp_client, serve

    from nanohubmcp import MCPServer

    server = MCPServer("capped", state_dir=str(tmp_path), max_jobs=2, max_jobs_per_owner=1)
    gate = threading.Event()

    @server.async_tool()
    def hold() -> str:
        """Wait for the test."""
        gate.wait(10)
        return "held"

    try:
        with serve(server) as url:
            async with mcp_client(url + "mcp") as client:
                first = await client.call_tool("hold", {})
                assert not first.is_error
                refused = await client.call_tool("hold", {})
                assert refused.is_error
                assert "Too many jobs for one client" in refused.content[0].text
            request = urllib.request.Request(url + "tools/hold", data=b"{}", method="POST",
                                             headers={"Content-Type": "application/json"})
            assert urllib.request.urlopen(request, timeout=10).status == 202
            with pytest.raises(urllib.error.HTTPError) as refused_rest:
                urllib.request.urlopen(request, timeout=10)
            assert refused_rest.value.code == 429
            assert "max_jobs" in json.loads(refused_rest.value.read())["error"]
    finally:
        gate.set()


def test_a_result_over_the_size_limit_fails_its_job(tmp_path: Path) -> None:
    store = jobmod.JobStore(name="sized", state_dir=tmp_path, max_result_bytes=1000)
    job = store.create("work", None)
    job.finish(jobmod.COMPLETED, result={"content": [{"type": "text", "text": "x" * 5000}]})
    assert job.status == jobmod.FAILED
    assert "keeps at most 1000" in job.status_message
    assert "max_job_result_bytes" in job.status_message
    stored = jobmod.JobStore(name="sized", state_dir=tmp_path).get(job.id, None)
    assert stored.status == jobmod.FAILED
    assert stored.result["isError"] is True


def test_expired_jobs_are_purged_from_the_file(tmp_path: Path) -> None:
    store = jobmod.JobStore(0.05, name="expiring", state_dir=tmp_path)
    job = store.create("work", None)
    job.finish(jobmod.COMPLETED, result={"content": []})
    job.finished_at = time.time() - 10  # finished long ago
    store.backend.update(job.id, {"finished_at": job.finished_at})
    kept = store.create("work", None)
    store.sweep()
    db = sqlite3.connect(tmp_path / "jobs.sqlite3")
    assert [row[0] for row in db.execute("SELECT id FROM jobs")] == [kept.id]
    with pytest.raises(UnknownComponent):
        store.get(job.id, None)


EARLIER_SCHEMA = """
CREATE TABLE jobs (
    id TEXT PRIMARY KEY, tool TEXT NOT NULL, owner TEXT, principal TEXT, owner_key TEXT NOT NULL,
    status TEXT NOT NULL, status_message TEXT, arguments TEXT, result TEXT, error TEXT, meta TEXT,
    created REAL NOT NULL, updated REAL NOT NULL, finished_at REAL, ttl REAL NOT NULL,
    as_task INTEGER NOT NULL DEFAULT 0, executor TEXT, executor_ref TEXT, runner TEXT,
    progress REAL, progress_total REAL, progress_message TEXT,
    progress_updates INTEGER NOT NULL DEFAULT 0);
CREATE INDEX jobs_by_owner ON jobs(owner_key);
CREATE INDEX jobs_by_expiry ON jobs(finished_at) WHERE status IN ('completed', 'failed', 'cancelled');
"""


def test_a_file_of_an_earlier_version_is_read_and_its_expired_jobs_purged(tmp_path: Path) -> None:
    # The store keeps when each job expires (a column of its own, so the purge is a range delete);
    # a file written before that column existed gains it, filled from its finished jobs, and the
    # column keeping the id of a job's provenance record.
    db = sqlite3.connect(tmp_path / "jobs.sqlite3")
    db.executescript(EARLIER_SCHEMA)
    now = time.time()
    old, recent, running = (name.ljust(32, "_") for name in ("old", "recent", "running"))  # an id's form
    for job_id, finished in ((old, now - 7200), (recent, now - 10), (running, None)):
        db.execute(
            "INSERT INTO jobs (id, tool, owner_key, status, created, updated, finished_at, ttl, runner) "
            "VALUES (?, 'work', 'anonymous', ?, ?, ?, ?, 3600, 'gone')",
            (job_id, "completed" if finished else "working", now - 8000, now, finished),
        )
    db.commit()
    db.close()
    store = jobmod.JobStore(name="earlier", state_dir=tmp_path)
    assert store.get(recent, None).status == jobmod.COMPLETED
    store.sweep()
    db = sqlite3.connect(tmp_path / "jobs.sqlite3")
    assert sorted(row[0] for row in db.execute("SELECT id FROM jobs")) == [recent, running]
    job = store.create("work", None, provenance_id="its-record")
    job.finish(jobmod.COMPLETED, result={"content": []})
    expires = db.execute("SELECT expires - finished_at FROM jobs WHERE id = ?", (job.id,)).fetchone()[0]
    assert expires == pytest.approx(store.ttl)
    assert jobmod.JobStore(name="earlier", state_dir=tmp_path).get(job.id, None).provenance_id == "its-record"


def test_the_memory_store_writes_nothing(tmp_path: Path) -> None:
    store = jobmod.JobStore(name="volatile", state_dir=tmp_path / "never", kind="memory")
    job = store.create("work", None)
    job.finish(jobmod.COMPLETED, result={"content": []})
    assert store.get(job.id, None) is job
    assert not (tmp_path / "never").exists()


def test_building_a_server_writes_nothing_until_a_job_is_stored(tmp_path: Path) -> None:
    from nanohubmcp import MCPServer

    server = MCPServer("lazy", state_dir=str(tmp_path / "lazy"))
    assert server.core.job_service.jobs.directory == str(tmp_path / "lazy")
    assert not (tmp_path / "lazy").exists()


def test_the_default_state_dir_follows_the_documented_order(monkeypatch: pytest.MonkeyPatch,
                                                            tmp_path: Path) -> None:
    monkeypatch.setenv("NANOHUBMCP_STATE_DIR", str(tmp_path / "env"))
    monkeypatch.setenv("SESSIONDIR", str(tmp_path / "session"))
    assert resolve_state_dir("x", tmp_path / "arg") == str(tmp_path / "arg")
    assert resolve_state_dir("x") == str(tmp_path / "env")
    monkeypatch.delenv("NANOHUBMCP_STATE_DIR")
    assert resolve_state_dir("my tool/1") == str(tmp_path / "session" / "nanohubmcp" / "my-tool-1")
    monkeypatch.delenv("SESSIONDIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert resolve_state_dir("calc") == str(tmp_path / "data" / "nanohubmcp" / "calc")


def test_an_unusable_state_dir_keeps_jobs_in_memory_and_says_so(tmp_path: Path,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    store = jobmod.JobStore(name="fallback", state_dir=blocker / "state")
    with caplog.at_level("WARNING", logger="nanohubmcp.jobs"):
        job = store.create("work", None)
    job.finish(jobmod.COMPLETED, result={"content": []})
    assert store.get(job.id, None) is job
    assert store.persistent is False
    assert "cannot keep jobs in" in caplog.text
    assert "NANOHUBMCP_STATE_DIR" in caplog.text


def test_the_store_uses_wal_on_a_local_disk(tmp_path: Path) -> None:
    store = jobmod.JobStore(name="wal", state_dir=tmp_path)
    store.create("work", None)
    assert store.backend.journal == "wal"
