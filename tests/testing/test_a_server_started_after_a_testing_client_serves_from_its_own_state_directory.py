"""A server started (``server.start()``) after a testing client gave it a temporary state directory serves its real
clients from the directory it would have had: the notebook that tests a tool in one cell and starts the server in the
next keeps its clients' jobs and records in ``~/.local/share/nanohubmcp/<name>``, not in a folder removed when the
kernel exits. What the testing clients kept stays in the temporary directory. While a job a testing client started
still runs there, the server keeps that directory (for good: its real clients' jobs go there too) and says so in
one line naming it. Found by a fresh-user trial
(trial46 T46-9).
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from pathlib import Path

import pytest
from support import post_rpc, serve

from nanohubmcp import MCPServer
from nanohubmcp.testing import RpcError, in_memory

pytestmark = pytest.mark.timeout(90)

PROVENANCE = "io.nanohub/provenance"


@pytest.fixture
def default_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No state directory named: the default, under a folder of this test."""
    monkeypatch.delenv("NANOHUBMCP_STATE_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    return tmp_path / "nanohubmcp"


def build(name: str, release: threading.Event) -> MCPServer:
    server = MCPServer(name)

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    @server.async_tool()
    def wait_for_release() -> str:
        """A job that runs until the test releases it."""
        return "released" if release.wait(30) else "never released"

    return server


def test_the_server_started_next_keeps_its_clients_state_in_its_own_directory(default_state: Path) -> None:
    release = threading.Event()
    release.set()  # its jobs end at once
    server = build("notebook-lab", release)
    with in_memory(server) as client:  # the cell testing a tool
        scratch = client.client.state_dir
        assert scratch is not None
        tested = client.call_tool("add", {"a": 1, "b": 2})["_meta"][PROVENANCE]
        job = client.call_tool("wait_for_release")["structuredContent"]["job_id"]
        while client.call_tool("get_job_result", {"job_id": job})["structuredContent"]["status"] == "running":
            time.sleep(0.01)
    assert os.path.isfile(os.path.join(scratch, "jobs.sqlite3"))  # kept there by the test

    own = default_state / "notebook-lab"
    with serve(server) as url:  # the next cell
        assert server.core.first_use.state_directory() == str(own)
        answer = post_rpc(url, "tools/call", {"name": "add", "arguments": {"a": 2, "b": 2}})["result"]
        record = answer["_meta"][PROVENANCE]
        started = post_rpc(url, "tools/call", {"name": "wait_for_release", "arguments": {}})["result"]
        http_job = json.loads(started["content"][0]["text"])["job_id"]  # (2025-03-26: no structuredContent)
        assert (own / "jobs.sqlite3").is_file()
        with in_memory(server) as client:  # a testing client now uses the server's directory too
            assert client.client.state_dir is None
            [contents] = client.read_resource(record)
            assert '"add"' in contents["text"]
            assert client.call_tool("get_job_result", {"job_id": http_job})["structuredContent"]["job_id"] == http_job
            with pytest.raises(RpcError, match="Resource not found"):  # the test's record stayed in the scratch
                client.read_resource(tested)
    assert (own / "provenance.sqlite3").is_file()
    assert os.path.isdir(scratch)  # (removed when the process exits)


def test_a_testing_clients_job_still_running_keeps_the_temporary_directory_and_says_so(
        default_state: Path, caplog: pytest.LogCaptureFixture) -> None:
    release = threading.Event()
    server = build("busy-lab", release)
    with in_memory(server) as client:
        scratch = client.client.state_dir
        assert scratch is not None
        job = client.call_tool("wait_for_release")["structuredContent"]["job_id"]
    # (the block's end handed the job over: its function still runs, its end is stored in the scratch)
    try:
        with caplog.at_level(logging.WARNING, logger="nanohubmcp"), serve(server):
            assert server.core.first_use.state_directory() == scratch
            said = [record.getMessage() for record in caplog.records if scratch in record.getMessage()]
            assert len(said) == 1, caplog.text
            assert "removed when the process exits" in said[0]
            assert "state_dir=" in said[0]
            release.set()
            with in_memory(server) as client:
                assert client.client.state_dir == scratch
                while (done := client.call_tool("get_job_result", {"job_id": job})["structuredContent"])[
                        "status"] == "running":
                    time.sleep(0.01)
                assert done["result"] == "released", done
        with serve(server):  # started again: it stays where its real clients' jobs are
            assert server.core.first_use.state_directory() == scratch
    finally:
        release.set()
    assert not (default_state / "busy-lab").exists()
