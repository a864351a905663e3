"""A read of a record URI that names no record waits for other processes' writers only when other
processes may write the records: a state directory the user named (``state_dir=``, ``--state-dir``,
``sqlite:///DIR``, ``NANOHUBMCP_STATE_DIR``) or a shared state URL (Redis, which ``--workers`` needs).

A server on its default state directory (one per server name) is this process's: on main it waited
``ELSEWHERE_SECONDS`` (5 s) before every "Resource not found" of a record URI it never made, though no
other process could be writing one. Servers given one state directory still find a record the other
has not written yet (the promise of docs/how-to/provenance.md and scale-out.md).

Real servers over HTTP, the official ``mcp`` client, records in real SQLite files."""

from __future__ import annotations

import contextlib
import json
import time
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError
from support import post_rpc, serve

from nanohubmcp import MCPServer
from nanohubmcp.server.provenance.record_db import DB_FILE
from nanohubmcp.server.provenance.record_ids import RecordIds
from nanohubmcp.server.provenance.records import ELSEWHERE_SECONDS, SQLiteRecords
from nanohubmcp.server.provenance.rows import URI_PREFIX

pytestmark = pytest.mark.timeout(120)
META = "io.nanohub/provenance"


def build(name: str, **options: Any) -> MCPServer:
    server = MCPServer(name, **options)

    @server.tool()
    def add(a: float, b: float) -> float:
        """a plus b."""
        return a + b

    return server


@pytest.fixture
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The per-user data directory (``XDG_DATA_HOME``), with no state directory named anywhere: servers
    keep their state in its ``nanohubmcp/<server name>``, the default."""
    for variable in ("NANOHUBMCP_STATE_DIR", "SESSIONDIR", "SESSION_DIR"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path / "data"


@contextlib.asynccontextmanager
async def official(url: str) -> AsyncIterator[Any]:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url + "mcp") as streams, ClientSession(streams[0], streams[1]) as session:
        await session.initialize()
        yield session


@pytest.mark.anyio
async def test_an_unknown_record_is_not_found_without_the_wait(data_home: Path) -> None:
    server = build("lone-records")
    with serve(server) as url:
        async with official(url) as client:
            made = await client.call_tool("add", {"a": 1, "b": 2})
            uri = made.meta[META]
            read = await client.read_resource(uri)  # its own record: found (and the records' file open)
            assert json.loads(read.contents[0].text)["tool"] == "add"
            store = server.core.provenance
            assert isinstance(store.backend, SQLiteRecords)  # records in SQLite, where a shared store waits
            assert (data_home / "nanohubmcp" / "lone-records" / DB_FILE).is_file()
            assert store.shared is False  # no other process writes them: nothing to wait for

            unknown = URI_PREFIX + RecordIds().next()  # of the server's form, never minted by it
            started = time.monotonic()
            with pytest.raises(MCPError) as missing:
                await client.read_resource(unknown)
            took = time.monotonic() - started
    assert missing.value.error.code == -32002  # as any unknown URI
    assert took < ELSEWHERE_SECONDS / 2, f"the read waited {took:.1f} s for other processes' writers"


def test_only_a_state_a_user_named_or_a_shared_url_may_be_written_elsewhere(
        data_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    named = tmp_path / "named"
    assert build("by-default").core.provenance.shared is False
    assert build("by-argument", state_dir=named).core.provenance.shared is True
    assert build("by-url", state_url=f"sqlite:///{named}").core.provenance.shared is True
    monkeypatch.setenv("NANOHUBMCP_STATE_DIR", str(named))
    assert build("by-environment").core.provenance.shared is True


def test_servers_given_one_state_directory_read_each_others_records_at_once(tmp_path: Path) -> None:
    state = tmp_path / "shared-state"
    with serve(build("recorded", state_dir=state)) as first, serve(build("recorded", state_dir=state)) as second:
        for i in range(4):
            sent = urllib.request.Request(first + "tools/add", json.dumps({"a": 1, "b": i}).encode(),
                                          {"Content-Type": "application/json"})
            with urllib.request.urlopen(sent, timeout=10) as response:  # REST: a record whoever holds its URI reads
                link = response.headers["Link"]
            uri = link[1 : link.index(">")]
            read = post_rpc(second, "resources/read", {"uri": uri}, path="", timeout=30)  # before first wrote it
            assert json.loads(read["result"]["contents"][0]["text"])["arguments"] == {"a": 1, "b": i}, read


def test_a_uri_whose_id_cannot_be_a_records_is_not_found_at_once_on_a_shared_store(tmp_path: Path) -> None:
    """trial42 T42-11: ``nanohubmcp://provenance/x`` waited the whole 5 s before "Resource not found", while
    another session's record answered at once, so the time told "exists, not yours" from "no such record".
    An id of another length or alphabet than every minted one (24 URL-safe characters) is answered at once,
    with the text any unknown record URI gets."""
    server = build("shared-records", state_dir=tmp_path / "state")
    assert server.core.provenance.shared is True
    with serve(server) as url:
        post_rpc(url, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}}, path="", timeout=30)

        def not_found(uri: str) -> tuple[str, float]:
            started = time.monotonic()
            answer = post_rpc(url, "resources/read", {"uri": uri}, path="", timeout=30)
            took = time.monotonic() - started
            assert answer["error"]["code"] == -32002, answer
            return answer["error"]["message"].replace(uri, "URI"), took

        for record_id in ("x", "a" * 23, "a" * 25, "a" * 64, "a" * 23 + "~"):
            message, took = not_found(URI_PREFIX + record_id)
            assert took < ELSEWHERE_SECONDS / 2, f"{record_id!r}: the read waited {took:.1f} s"
        waited, _ = not_found(URI_PREFIX + RecordIds().next())  # of a record's form: waited for, the same text
    assert message == waited
