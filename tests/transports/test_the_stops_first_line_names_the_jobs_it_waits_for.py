"""review r28 #8: the line a stop says as its drain begins named the running tool calls only ("waiting for 1
running tool call(s)"), and, said, kept the line after the drain from being said, the one that named the
``@async_tool`` jobs the process then waits for too: a stop waited seconds for a job it never named. The first
line now names both: ``waiting for 1 running tool call(s) and 1 running job(s) to return``.

A real ``nanohubmcp run`` process, a threads job and a sync call running at SIGTERM; every wait is for a
condition."""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from stop_lines_app import stop_lines_app
from support import app_server, wait_until

pytestmark = pytest.mark.timeout(120)


def test_a_stop_with_a_call_and_a_job_running_names_both_as_it_begins(tmp_path: Path) -> None:
    with app_server(stop_lines_app(tmp_path), "--exit-grace", "10", log=tmp_path / "server.log") as served:
        handle = httpx.post(f"{served.url}tools/long_job", json={"seconds": 4}, timeout=60)
        assert handle.status_code in (200, 202), handle.text
        answers: list[Any] = []
        caller = threading.Thread(
            target=lambda: answers.append(httpx.post(f"{served.url}tools/slow", json={"seconds": 2}, timeout=60)),
            daemon=True)
        caller.start()
        wait_until(lambda: "slow: running" in served.output and "job: running" in served.output,
                   "the call and the job to run")
        served.process.send_signal(signal.SIGTERM)
        caller.join(60)
        assert served.process.wait(60) == 0
        said = served.output
    waiting = [line for line in said.splitlines() if "stopped; waiting for" in line]
    assert waiting, said
    assert "waiting for 1 running tool call(s) and 1 running job(s) to return" in waiting[0], said
    assert said.index(waiting[0]) < said.index("job: returning"), said  # said before the wait for the job
    assert answers, said
    assert answers[0].status_code == 200, said
    assert "Traceback" not in said, said
