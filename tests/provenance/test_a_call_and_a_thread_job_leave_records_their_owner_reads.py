"""Every tool call and every job leaves a provenance record; its result's ``_meta`` names the
record's URI under ``io.nanohub/provenance``; ``resources/read`` of that URI answers the record
to its owner (same token) and "not found" to another principal (another token) — through a real
server and the official ``mcp`` client. A secret argument (``format: password``) is never stored.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Iterator
from typing import Annotated, Any

import pytest
from clients import official
from mcp.shared.exceptions import MCPError
from support import post_rpc, serve

from nanohubmcp import MCPServer, Secret, StaticTokenVerifier

pytestmark = pytest.mark.anyio
ALICE, BOB = "token-of-alice", "token-of-bob"
META = "io.nanohub/provenance"


def build() -> MCPServer:
    server = MCPServer("recorded", auth=StaticTokenVerifier({ALICE: "alice", BOB: "bob"}))

    @server.tool()
    def scale(
        x: float, factor: float = 2.0, api_key: Secret = "", pin: Annotated[str, {"format": "password"}] = ""
    ) -> dict[str, float]:
        """x times factor."""
        return {"y": x * factor}

    @server.async_tool()
    def slow_square(n: int) -> dict[str, int]:
        """n squared, as a job on the server's threads."""
        return {"square": n * n, "pid": os.getpid()}

    @server.tool(provenance=False)
    def unrecorded() -> str:
        """A tool whose calls leave no record."""
        return "quiet"

    return server


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serve(build()) as base:
        yield base


async def read_record(session: Any, uri: str) -> dict[str, Any]:
    read = await session.read_resource(uri)
    assert read.contents[0].mime_type == "application/json"
    record: dict[str, Any] = json.loads(read.contents[0].text)
    return record


async def test_a_call_is_recorded_and_read_by_its_owner_only(url: str) -> None:
    async with official(url, ALICE) as alice:
        before = time.time()
        result = await alice.call_tool("scale", {"x": 3, "api_key": "hunter2", "pin": "8642"})
        assert not result.is_error
        uri = result.meta[META]
        assert uri.startswith("nanohubmcp://provenance/")
        record = await read_record(alice, uri)
        assert record["tool"] == "scale"
        assert record["arguments"]["x"] == 3
        assert "hunter2" not in json.dumps(record)
        assert "8642" not in json.dumps(record)
        assert set(record["arguments"]) == {"x", "api_key", "pin"}
        assert record["code"]["hash"].startswith("sha256:")
        assert len(record["code"]["hash"]) == 71
        assert record["principal"] == "alice"
        assert record["session"]
        assert before <= record["started"] <= record["ended"] <= time.time()
        assert record["where"]["host"] == socket.gethostname()
        assert record["where"]["pid"] == os.getpid()
        assert record["executor"] == "worker-pool"
        assert record["status"] == "completed"
        assert record["result_digest"].startswith("sha256:")
        assert record["python"]["version"]
        assert record["packages"]["pytest"] == pytest.__version__
        assert record["trace_id"] is None or len(record["trace_id"]) in (16, 32)  # ids when the process traces
        assert record["span_id"] is None or len(record["span_id"]) in (16, 32)  # ids when the process traces
        assert record["cache"] is None

    async with official(url, BOB) as bob:
        with pytest.raises(MCPError) as refused:
            await read_record(bob, uri)
        assert refused.value.error.code == -32002  # the answer of any unknown URI: ids cannot be probed
        quiet = await bob.call_tool("unrecorded", {})
        assert META not in (quiet.meta or {})

    async with official(url, ALICE) as alice_again:  # another session of the same principal
        assert (await read_record(alice_again, uri))["id"] == record["id"]


async def test_a_thread_job_records_its_end_and_where_it_ran(url: str) -> None:
    async with official(url, ALICE) as alice:
        started = await alice.call_tool("slow_square", {"n": 12})
        job_id = started.structured_content["job_id"]
        uri = started.meta[META]
        for _ in range(200):
            polled = await alice.call_tool("get_job_result", {"job_id": job_id})
            if polled.structured_content["status"] == "done":
                break
            await _pause()
        assert polled.meta[META] == uri  # the ended job's record: polling leaves no record of its own
        assert polled.structured_content["status"] == "done"
        record = await read_record(alice, uri)  # the job handle's _meta named the job's record
        assert record["job_id"] == job_id
        assert record["status"] == "completed"
        assert record["executor"] == "threads"
        assert record["where"]["pid"] == os.getpid()
        assert record["ended"] >= record["started"]
        assert record["result_digest"].startswith("sha256:")
        assert record["arguments"] == {"n": 12}
    async with official(url, BOB) as bob:
        with pytest.raises(MCPError):
            await read_record(bob, uri)


def test_post_slash_reads_a_record_for_its_owner_only(url: str) -> None:
    alice = {"Authorization": f"Bearer {ALICE}"}
    called = post_rpc(url, "tools/call", {"name": "scale", "arguments": {"x": 1}}, headers=alice, path="")
    uri = called["result"]["_meta"][META]
    read = post_rpc(url, "resources/read", {"uri": uri}, headers=alice, path="")
    assert json.loads(read["result"]["contents"][0]["text"])["tool"] == "scale"
    theirs = post_rpc(url, "resources/read", {"uri": uri}, headers={"Authorization": f"Bearer {BOB}"}, path="")
    assert theirs["error"]["code"] == -32002


async def _pause() -> None:
    import anyio

    await anyio.sleep(0.02)


def test_a_2026_read_of_a_finished_record_says_how_long_it_keeps(url: str) -> None:
    alice = {"Authorization": f"Bearer {ALICE}"}
    called = post_rpc(url, "tools/call", {"name": "scale", "arguments": {"x": 2}}, headers=alice, path="")
    uri = called["result"]["_meta"][META]
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    headers = {
        **alice,
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "resources/read",
        "Mcp-Name": uri,
        "Accept": "application/json, text/event-stream",
    }
    read = post_rpc(url, "resources/read", {"uri": uri, "_meta": meta}, headers=headers)
    result = read["result"]
    assert result["cacheScope"] == "private"
    assert 0 < result["ttlMs"] <= 3600 * 1000  # the job store's TTL: the record stays that long, unchanged
    assert json.loads(result["contents"][0]["text"])["uri"] == uri


def test_a_rest_call_names_its_record_in_a_link_header(url: str) -> None:
    import urllib.request

    alice = {"Authorization": f"Bearer {ALICE}"}
    sent = urllib.request.Request(
        url + "tools/scale", json.dumps({"x": 5}).encode(), {**alice, "Content-Type": "application/json"}
    )
    with urllib.request.urlopen(sent, timeout=10) as response:
        link = response.headers["Link"]
        assert json.loads(response.read()) == {"y": 10.0}
    assert link.endswith('>; rel="http://www.w3.org/ns/prov#has_provenance"')
    uri = link[1 : link.index(">")]
    read = post_rpc(url, "resources/read", {"uri": uri}, headers=alice, path="")
    assert json.loads(read["result"]["contents"][0]["text"])["arguments"] == {"x": 5}
