"""The TypeScript SDK (the MCP Inspector CLI) through nginx round-robin over three processes: each
CLI run is one session (initialize, then the method) whose requests land on different processes,
over Streamable HTTP and over legacy SSE (its stream on one process, its POSTs on others)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cluster import Cluster

sys.path.insert(0, str(Path(__file__).parents[1] / "auth"))
from inspector import inspector

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def installed() -> list[str]:
    return inspector()  # install once, before any server starts


def cli(installed: list[str], url: str, *args: str) -> object:
    env = {**os.environ, "MCP_CATALOG_PATH": os.devnull}
    try:
        done = subprocess.run(
            [*installed, url, *args], capture_output=True, text=True, timeout=60, check=False, env=env
        )
    except subprocess.TimeoutExpired as late:
        pytest.fail(f"the TypeScript client {' '.join(args)} got no answer within 60 s: {late.stderr!r}")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize(("transport", "path"), [("http", "/mcp"), ("sse", "/sse")])
def test_a_typescript_session_spans_the_processes(
    installed: list[str], calm_cluster: Cluster, transport: str, path: str
) -> None:
    url = calm_cluster.url.removesuffix("/mcp") + path
    before = {server.port: len(server.text()) for server in calm_cluster.servers}
    listed = cli(installed, url, "--transport", transport, "--method", "tools/list")
    assert {"where", "count", "ask_name"} <= {tool["name"] for tool in listed["tools"]}  # type: ignore[index]
    counted = cli(
        installed, url, "--transport", transport, "--method", "tools/call", "--tool-name", "count", "--tool-arg", "n=3"
    )
    assert counted["content"][0]["text"].startswith("counted to 3")  # type: ignore[index]
    read = cli(installed, url, "--transport", transport, "--method", "resources/read", "--uri", "note://current")
    assert read["contents"][0]["text"]  # type: ignore[index]
    reached = [
        server for server in calm_cluster.servers if server.text()[before[server.port] :].count("nanohubmcp.access")
    ]
    assert len(reached) == 3, "the CLI's requests should reach every process"
