"""A record's id is pasted into ``nanohubmcp provenance export ID``: an id minted beginning with
``-`` was read by argparse as an unknown option ("the following arguments are required: CALL_ID";
one id in 64 — CI failed on one). Ids are now minted never beginning with ``-``, and the command
takes one that does (a state directory written before) as its CALL_ID."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from clients import official
from support import serve

from nanohubmcp import MCPServer, StaticTokenVerifier
from nanohubmcp.server.provenance.record_ids import RUN_BITS, RecordIds

pytestmark = pytest.mark.anyio


def band_gap(material: str) -> dict[str, float]:
    """A made-up band gap (eV)."""
    return {"gap_eV": 1.12 if material == "Si" else 0.66}


def test_no_minted_id_begins_with_a_dash() -> None:
    """Every value of the run counter's leading character (the one the old 36-bit counter made
    ``-`` or ``_`` for two of 64 runs), and the counter's wrap around."""
    firsts = set()
    for top in range(64):
        ids = RecordIds()
        ids._run = (top << (RUN_BITS - 5)) - 1  # the next run's counter starts with these bits
        minted = ids.next()
        assert len(minted) == 24
        firsts.add(minted[0])
    assert not firsts & {"-", "_"}, firsts
    assert firsts == set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef")


async def test_the_cli_exports_a_record_whose_id_begins_with_a_dash(tmp_path: Path) -> None:
    state = tmp_path / "state"
    server = MCPServer("crates", state_dir=str(state), auth=StaticTokenVerifier({"alice-token": "alice"}))
    server.tool()(band_gap)
    with serve(server) as url:
        async with official(url, "alice-token") as alice:
            result = await alice.call_tool("band_gap", {"material": "Si"})
    record_id = result.meta["io.nanohub/provenance"].rsplit("/", 1)[1]
    dashed = "-" + record_id[1:]  # as an id minted before the fix could be
    (database,) = state.rglob("provenance.sqlite3")
    with sqlite3.connect(database) as db:
        assert db.execute("UPDATE calls SET id = ? WHERE id = ?", (dashed, record_id)).rowcount == 1
    for words in ([dashed, "--state-dir", str(state), "-o"], ["--state-dir", str(state), "-o"]):
        crate = tmp_path / f"crate-{len(words)}"
        command = [sys.executable, "-m", "nanohubmcp", "provenance", "export", *words, str(crate)]
        if dashed not in words:
            command += ["--", dashed]  # the usual way to say "this is not an option" works too
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert (crate / "ro-crate-metadata.json").is_file()
        assert dashed in (crate / "ro-crate-metadata.json").read_text()
