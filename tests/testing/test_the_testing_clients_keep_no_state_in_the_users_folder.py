"""The testing clients give a server with no state directory named a temporary one, removed when the process
exits: a test never writes into the default folder of the server's name, which a real server of that name uses.

Found by a fresh-user trial (trial44 T44-12): ``with in_memory(MCPServer("w")) as c: c.call_tool(...)`` wrote
provenance records into ``~/.local/share/nanohubmcp/w/provenance.sqlite3`` (and read that server's cache).

Each scenario runs in a Python of its own, with ``XDG_DATA_HOME`` pointing at a folder of the test (the
default folder's root) and the per-test ``NANOHUBMCP_STATE_DIR`` of conftest removed, so the default is in
force and nothing of the user's is touched.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = """
import asyncio, json, os, sys
from nanohubmcp import MCPServer
from nanohubmcp.testing import client_session, in_memory

named = sys.argv[1] if len(sys.argv) > 1 else None
server = MCPServer("lab", state_dir=named)

@server.tool()
def add(a: int, b: int) -> int:
    '''Add.'''
    return a + b

@server.async_tool()
def slow_add(a: int, b: int) -> int:
    '''Add, as a job.'''
    return a + b

with in_memory(server) as client:
    state_dir = getattr(client.client, "state_dir", None)
    record = client.call_tool("add", {"a": 1, "b": 2})["_meta"]["io.nanohub/provenance"]
    job = client.call_tool("slow_add", {"a": 2, "b": 3})["structuredContent"]["job_id"]
    # (done before this client closes: a job still running then is ended as "the server stopped")
    while client.call_tool("get_job_result", {"job_id": job})["structuredContent"]["status"] == "running":
        pass

async def official():
    async with client_session(server) as session:  # the same directory: the job is read there
        while True:
            answer = await session.call_tool("get_job_result", {"job_id": job})
            if answer.structured_content["status"] != "running":
                return answer.structured_content

done = asyncio.run(official())
with in_memory(server) as client:
    read = client.read_resource(record)
folder = state_dir or named or os.environ.get("NANOHUBMCP_STATE_DIR") or "."
print(json.dumps({"state_dir": state_dir, "done": done, "files": sorted(os.listdir(folder)), "read": bool(read)}))
"""


def run(tmp_path: Path, *args: str, state_env: str | None = None) -> dict:
    env = {key: value for key, value in os.environ.items() if key not in ("NANOHUBMCP_STATE_DIR", "SESSIONDIR",
                                                                             "SESSION_DIR")}
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    env["TMPDIR"] = str(tmp_path / "tmp")
    (tmp_path / "tmp").mkdir(exist_ok=True)
    if state_env is not None:
        env["NANOHUBMCP_STATE_DIR"] = state_env
    done = subprocess.run([sys.executable, "-c", SCRIPT, *args], env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_server_with_no_state_dir_keeps_its_state_in_a_temporary_one_removed_at_exit(tmp_path: Path) -> None:
    seen = run(tmp_path)
    assert not (tmp_path / "data" / "nanohubmcp").exists(), list((tmp_path / "data").rglob("*"))
    scratch = seen["state_dir"]
    assert scratch is not None
    assert Path(scratch).parent == tmp_path / "tmp"  # tempfile's folder (TMPDIR)
    assert Path(scratch).name.startswith("nanohubmcp-test-lab-")
    assert "provenance.sqlite3" in seen["files"]
    assert "jobs.sqlite3" in seen["files"]
    assert seen["done"]["result"] == 5  # the job one client started, read by another client
    assert seen["read"]  # and the call's provenance record
    assert not Path(scratch).exists()  # removed when the process exited
    assert list((tmp_path / "tmp").iterdir()) == []


@pytest.mark.parametrize("how", ["state_dir=", "NANOHUBMCP_STATE_DIR"])
def test_a_named_state_dir_is_kept(tmp_path: Path, how: str) -> None:
    named = tmp_path / "named"
    seen = run(tmp_path, str(named)) if how == "state_dir=" else run(tmp_path, state_env=str(named))
    assert seen["state_dir"] is None
    assert "provenance.sqlite3" in seen["files"]
    assert (named / "provenance.sqlite3").exists()  # kept after the process
    assert seen["done"]["result"] == 5
    assert not (tmp_path / "data" / "nanohubmcp").exists()
