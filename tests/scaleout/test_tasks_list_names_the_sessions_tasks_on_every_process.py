"""``tasks/list`` answers the session's tasks whichever process runs them: three ``nanohubmcp run``
processes sharing a real redis-server, each request sent to one process's own port. Tasks started on
the second and third processes are listed by the first (which runs none), oldest first, once each;
another session's task is not.

Found by a fresh-user trial (trial 22, F10): ``tasks/list`` listed only the tasks of the process it
reached, though their records were in Redis.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import wire
from cluster import Cluster

pytestmark = pytest.mark.timeout(120)
TASK = {"ttl": 60000}


def start(url: str, session: str, done: Path) -> str:
    created = wire.result(url, session, "tools/call", {"name": "until_file", "arguments": {"path": str(done)},
                                                  "task": TASK})
    return str(created["task"]["taskId"])


def test_tasks_list_on_one_process_names_the_tasks_the_others_run(calm_cluster: Cluster, tmp_path: Path) -> None:
    first, second, third = calm_cluster.servers
    done = tmp_path / "done"
    session = wire.initialize(first.url)
    other = wire.initialize(first.url)
    try:
        mine = [start(second.url, session, done), start(third.url, session, done)]
        theirs = start(second.url, other, done)
        for url in (first.url, second.url, third.url):
            listed = wire.result(url, session, "tasks/list", {})["tasks"]
            assert [t["taskId"] for t in listed] == mine, (url, listed)
            assert {t["status"] for t in listed} == {"working"}
        assert [t["taskId"] for t in wire.result(third.url, other, "tasks/list", {})["tasks"]] == [theirs]
    finally:
        done.write_text("go")
