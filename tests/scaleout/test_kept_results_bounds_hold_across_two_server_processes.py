"""Two real ``nanohubmcp run APP --state-dir DIR`` processes sharing one state directory (the setup
docs/how-to/scale-out.md gives for servers without Redis) count the kept-results bounds over both.

A principal calls a tool whose result is larger than ``max_inline_bytes`` (so it is kept, and the call
answers its link) on process A and B in turn: it never holds more than ``max_kept_bytes_per_owner`` on disk,
its newest results read on both processes, its oldest answer "Resource evicted" on both (each process
counted its own share: the principal kept twice it, and the process that had not evicted a link called it
"not found"), and another principal's results are untouched. Then calls on both at once: the bound holds.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from support import ScriptServer, app_server, mcp_client

APP = """\
from nanohubmcp import MCPServer, Principal

USERS = {"alice-token": Principal("alice"), "bob-token": Principal("bob")}


def check(token: str) -> Principal | None:
    return USERS.get(token)


server = MCPServer("kept-shared", auth=check, max_inline_bytes=1000, max_kept_bytes=100_000,
                   max_kept_bytes_per_owner=10_000)


@server.tool()
def big(mark: str, size: int) -> str:
    \"\"\"``size`` characters: ``mark`` again and again.\"\"\"
    return (mark * size)[:size]
"""
SIZE = 3_000
"""Each result's bytes: three fit in a principal's 10,000, a fourth evicts the oldest."""
SHARE = 10_000
RESOURCE_NOT_FOUND = -32002


def kept_bytes(state: Path, owner: str) -> int:
    """What the results folder holds for ``owner`` (by its ``.meta.json`` files)."""
    total = 0
    for meta in (state / "results").glob("*.meta.json"):
        with contextlib.suppress(FileNotFoundError):  # (dropped while listed)
            found = json.loads(meta.read_text())
            total += found["size"] if found["owner"] == owner else 0
    return total


async def keep(client: Any, mark: str) -> str:
    """Call ``big`` so its result is kept; the link the call answers."""
    result = await client.call_tool("big", {"mark": mark, "size": SIZE})
    assert not result.is_error, result
    links = [block.uri for block in result.content if block.type == "resource_link"]
    assert len(links) == 1, result
    return str(links[0])


async def read(client: Any, uri: str) -> str:
    """The text of ``uri``, or the error's message (the resource-not-found error, -32002)."""
    try:
        contents = (await client.read_resource(uri)).contents
    except MCPError as exc:
        error = exc.error
    else:
        return str(contents[0].text)
    assert error.code == RESOURCE_NOT_FOUND, error
    return error.message


@pytest.mark.anyio
@pytest.mark.timeout(60)
async def test_one_principal_keeps_its_share_over_two_processes(tmp_path: Path) -> None:
    app, state = tmp_path / "kept_shared_app.py", tmp_path / "state"
    app.write_text(APP)
    with (app_server(app, "--state-dir", str(state), log=tmp_path / "a.log") as a,
          app_server(app, "--state-dir", str(state), log=tmp_path / "b.log") as b):
        async with contextlib.AsyncExitStack() as stack:
            bob, alice = [[await stack.enter_async_context(mcp_client(p.url + "mcp", token=token)) for p in (a, b)]
                          for token in ("bob-token", "alice-token")]
            alices = [await keep(alice[0], "a"), await keep(alice[1], "A")]

            bobs: list[str] = []
            for i in range(8):  # on A, B, A, B, ...: each keep past the share evicts the oldest, wherever kept
                bobs.append(await keep(bob[i % 2], "bcdefghi"[i]))
                assert kept_bytes(state, "principal:bob") <= SHARE, f"after {i + 1} calls: {servers(a, b)}"
            for client in bob:  # (read only now: a process reading a link learns of it)
                for n, uri in enumerate(bobs):
                    text = await read(client, uri)
                    if n >= len(bobs) - SHARE // SIZE:  # the newest three
                        assert text == "bcdefghi"[n] * SIZE, text[:200]
                    else:  # was "Resource not found" on the process that had not evicted it
                        assert text.startswith(f"Resource evicted: {uri}: the server keeps at most {SHARE} "
                                               "bytes of large results per principal"), text[:200]

            assert await read(alice[1], bobs[0]) == f"Resource not found: {bobs[0]}"  # not hers to know of
            for client in alice:
                assert [await read(client, uri) for uri in alices] == ["a" * SIZE, "A" * SIZE]
            assert kept_bytes(state, "principal:alice") == 2 * SIZE

            at_once: list[str] = []

            async def keep_on(client: Any, mark: str) -> None:
                at_once.append(await keep(client, mark))

            async with anyio.create_task_group() as calls:  # three calls on each process at once
                for i in range(6):
                    calls.start_soon(keep_on, bob[i % 2], "jklmno"[i])
            assert kept_bytes(state, "principal:bob") <= SHARE, servers(a, b)
            readable = [uri for uri in bobs + at_once if not (await read(bob[1], uri)).startswith("Resource")]
            assert len(readable) == SHARE // SIZE
            assert set(readable) <= set(at_once)
            for client in alice:
                assert [await read(client, uri) for uri in alices] == ["a" * SIZE, "A" * SIZE]


def servers(*processes: ScriptServer) -> str:
    """For a failure message: what the processes logged."""
    return "\n".join(f"--- {p.url}\n{p.output[-2000:]}" for p in processes)
