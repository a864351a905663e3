"""``nanohubmcp provenance list`` names who made each record and lists one caller's with ``--caller``.

Found by a user trial (trial 68, O4): on a server of two principals the list printed alice's and bob's records
interleaved, with no column saying whose call a line was. Whoever reads the state directory's file may read every
record (the server's own operator); the column is the record's principal, else its session's digest (a session id
is never stored), else ``-``. Through real servers, the official ``mcp`` client and the command in a process of its
own.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from clients import official
from support import serve

from nanohubmcp import MCPServer, StaticTokenVerifier

pytestmark = pytest.mark.anyio
ALICE, BOB = "token-of-alice", "token-of-bob"


def listing(state: Path, *options: str) -> str:
    """What ``provenance list --state-dir STATE OPTIONS...`` prints."""
    done = subprocess.run([sys.executable, "-m", "nanohubmcp", "provenance", "list", "--state-dir", str(state),
                           *options], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def listed(state: Path, *options: str) -> list[list[str]]:
    """The words of each row ``provenance list`` prints (after its header, which is checked)."""
    header, *rows = listing(state, *options).splitlines()
    assert header.split()[:4] == ["record", "tool", "caller", "status"], header
    return [row.split() for row in rows]


def square_server(state: Path, **options: object) -> MCPServer:
    server = MCPServer("squares", state_dir=str(state), **options)  # type: ignore[arg-type]

    @server.tool()
    def square(x: int) -> int:
        """The square of x."""
        return x * x

    return server


async def test_each_record_names_its_principal_and_caller_picks_one(tmp_path: Path) -> None:
    state = tmp_path / "two-users"
    server = square_server(state, auth=StaticTokenVerifier({ALICE: "alice", BOB: "bob"}))
    with serve(server) as url:
        async with official(url, ALICE) as alice, official(url, BOB) as bob:
            await alice.call_tool("square", {"x": 2})
            await bob.call_tool("square", {"x": 3})
            await alice.call_tool("square", {"x": 4})
        server.call("square", {"x": 5})  # in the server's own process: no caller
    assert [row[2] for row in listed(state)] == ["-", "alice", "bob", "alice"]  # newest first
    assert [row[1:4] for row in listed(state, "--caller", "alice")] == [["square", "alice", "completed"]] * 2
    assert [row[2] for row in listed(state, "--caller", "bob")] == ["bob"]
    assert [row[2] for row in listed(state, "--caller", "-")] == ["-"]
    assert listing(state, "--caller", "carol").startswith("No provenance records of the caller 'carol' in ")


async def test_a_session_without_a_principal_is_named_by_its_digest(tmp_path: Path) -> None:
    state = tmp_path / "open"
    with serve(square_server(state)) as url:
        async with official(url, "unused") as session:  # (no auth: the header is not read)
            result = await session.call_tool("square", {"x": 2})
            record = await session.read_resource(result.meta["io.nanohub/provenance"])
    digest = json.loads(record.contents[0].text)["session"]
    assert len(digest) == 12
    assert [row[2] for row in listed(state)] == [f"session:{digest}"]
    assert [row[2] for row in listed(state, "--caller", f"session:{digest[:6].upper()}")] == [f"session:{digest}"]
    # "in any case" (provenance.md): the word too (trial71 T71-8: SESSION:3A80 found nothing)
    assert [row[2] for row in listed(state, "--caller", f"SESSION:{digest[:6].upper()}")] == [f"session:{digest}"]
    other = "session:" + ("0" if digest[0] != "0" else "1")
    assert listing(state, "--caller", other).startswith(f"No provenance records of the caller {other!r} in ")
