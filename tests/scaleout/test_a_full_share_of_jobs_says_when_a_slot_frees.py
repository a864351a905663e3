"""A caller whose share of the job store is full (``max_jobs_per_owner``) is told when a slot frees, and a
job whose record expired stops counting at once, on every back end (in memory, one SQLite file, a real
redis-server).

Trial56 F9: 1,000 finished jobs refused a principal's next job for up to an hour with a 429 that had no
``Retry-After``. Finished jobs count until they expire (the bound is on what a principal keeps stored:
their results); the refusal now says when the first of them expires (``retry_after``: the MCP result's
``_meta``, REST's ``Retry-After``), and one that expired but was not swept yet (the sweep runs every 10 s;
Redis keeps the record a minute longer) no longer counts. Before, ``retry_after`` did not exist and the
expired job still refused the next one.

Trial57 F2: the refusal's text (what a model reads, and REST's ``error``) still said only "Wait until earlier
jobs finish and expire", when all 1,000 had finished: it now says how many run and how many finished and are
kept, and when the first slot frees, the seconds ``Retry-After`` gives.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import serve, wait_until

from nanohubmcp import MCPServer
from nanohubmcp.errors import JobLimitReached
from nanohubmcp.server.jobs import service as jobmod
from nanohubmcp.state.url import parse

pytestmark = pytest.mark.timeout(120)
TTL = 100.0


def _done(job: jobmod.Job) -> None:
    job.finish(jobmod.COMPLETED, result={"content": [{"type": "text", "text": "done"}]})


@pytest.fixture(params=["memory", "sqlite", "redis"])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[object]:
    made: list[jobmod.JobStore] = []
    # (Redis asked for first: it stops after this fixture's end has closed the stores, so their threads end at once)
    redis = request.getfixturevalue("redis_server") if request.param == "redis" else None

    def make(ttl: float) -> jobmod.JobStore:
        if redis is not None:
            url = parse(redis.url)
            store = jobmod.JobStore(ttl, name=f"share{len(made)}", shared=url, max_jobs_per_owner=2)
        else:
            store = jobmod.JobStore(ttl, name="share", state_dir=tmp_path / str(len(made)), kind=request.param,
                                    max_jobs_per_owner=2)
        made.append(store)
        return store

    yield make
    for store in made:
        store.backend.close()
        if store.runs.locks is not None:
            store.runs.locks.release()


def test_the_refusal_says_when_the_first_finished_job_expires(make_store) -> None:  # type: ignore[no-untyped-def]
    store = make_store(TTL)
    first, _second = store.create("work", "s1"), store.create("work", "s1")
    with pytest.raises(JobLimitReached) as running:
        store.create("work", "s1")
    assert running.value.retry_after is None  # both still run: no one knows when a slot frees
    assert "all 2 of yours are still running, so a slot frees only once one of them ends" in str(running.value)
    _done(first)
    with pytest.raises(JobLimitReached, match="max_jobs_per_owner") as finished:
        store.create("work", "s1")
    assert TTL - 5 <= finished.value.retry_after <= TTL
    assert (f"you have 1 running and 1 finished and kept. A slot frees in about {finished.value.retry_after} s, "
            "when your first finished job expires") in str(finished.value)
    store.create("work", "s2")  # another owner's share is its own


def test_a_job_expired_but_not_swept_yet_no_longer_counts(make_store) -> None:  # type: ignore[no-untyped-def]
    store = make_store(1.0)
    jobs = [store.create("work", "s1") for _ in range(2)]
    for job in jobs:
        _done(job)
    ends = max(job.finished_at for job in jobs) + 1.0
    wait_until(lambda: time.time() > ends + 0.05, "both jobs to expire", 10)
    assert store.create("work", "s1").status == jobmod.WORKING


def _rest(base: str, name: str) -> tuple[int, dict[str, str], dict[str, object]]:
    request = urllib.request.Request(base + "tools/" + name, b"{}", {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), json.loads(exc.read())


def test_rest_answers_429_with_retry_after_and_mcp_with_retry_after_meta(tmp_path: Path) -> None:
    from support import call_tool_http

    server = MCPServer("shared", state_dir=str(tmp_path), max_jobs_per_owner=1, job_ttl_seconds=TTL)

    @server.async_tool()
    def quick() -> str:
        """Answer at once."""
        return "quick"

    with serve(server) as base:
        status, _, started = _rest(base, "quick")
        assert status == 202, started
        wait_until(lambda: server.core.jobs.backend.load(str(started["job_id"]))["status"] == jobmod.COMPLETED,
                   "the job to finish", 30)
        status, headers, body = _rest(base, "quick")
        assert status == 429, body
        assert "max_jobs_per_owner" in str(body["error"])
        assert TTL - 5 <= int(headers["Retry-After"]) <= TTL
        assert (f"all 1 of yours have finished and are kept. A slot frees in about {headers['Retry-After']} s"
                in str(body["error"])), body
        refused = call_tool_http(base, "quick", {})  # a sessionless MCP call: the same owner (every sessionless caller)
        assert refused["isError"] is True
        assert TTL - 5 <= refused["_meta"]["io.nanohub/retryAfter"] <= TTL
        assert f"A slot frees in about {refused['_meta']['io.nanohub/retryAfter']} s" in refused["content"][0]["text"]
