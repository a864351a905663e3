"""Instructions a provenance record costs the writer thread: made and written, nothing else.

    .venv/bin/python bench/provenance_record_cost.py                    # write, with a session
    .venv/bin/python bench/provenance_record_cost.py --what build --no-session
    PYTHONPATH=/tmp/other-tree .venv/bin/python bench/provenance_record_cost.py   # another checkout

One real call of a trivial ``async def add(a, b)`` through the connection seam gives the item its
layer hands over (the pending call); the item is then copied with a fresh record id and a fresh
result copy, ``N`` times, and given to the record path's own code: ``build`` (``capture.build``),
``store`` (that and ``SQLiteRecords.put_many``, 256 rows a batch) or ``write`` (the writer's batch,
``RecordWrites.write``, 256 items a batch: build, the session's note, the facts, put_many). With
a session (the default) the item names a ``Session`` as a call over Streamable HTTP does.

Counted with ``valgrind --tool=exp-bbv`` (every thread), two runs of ``N`` and ``11 N`` items, as
(difference) / 10 N: start-up, the first statement compiles and the table read cancel out. The
copying loop (~3k a record) is in every figure. The figures repeat within ~100 instructions.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import secrets
import subprocess
import sys
import tempfile
import time
from typing import Any

from nanohubmcp import MCPServer
from nanohubmcp.protocol import jsonenc
from nanohubmcp.server.connection import Connection
from nanohubmcp.server.provenance import capture, code_facts
from nanohubmcp.server.provenance.record_db import SQLiteRecords
from nanohubmcp.server.provenance.record_ids import RecordIds
from nanohubmcp.server.wire.sessions import Session

BATCH = 256


class _Kept:
    """Stands in the store's queue for the one seam call: keeps the item handed over."""

    def __init__(self) -> None:
        self.items: list[Any] = []

    def add(self, item: Any) -> bool:
        self.items.append(item)
        return True


def run(count: int, what: str, session: bool) -> None:
    code_facts.warm()
    if code_facts._table_reader is not None:
        code_facts._table_reader.join()
    scratch = tempfile.mkdtemp()
    server = MCPServer("record-cost", state_dir=f"{scratch}/state")

    @server.tool()
    async def add(a: float, b: float) -> float:
        """Add two numbers."""
        return a + b

    store = server.core.provenance
    kept = _Kept()
    store.pending = kept  # type: ignore[assignment]  # (the layer takes the store's queue when it is made)

    async def one() -> None:
        connection = Connection(server.core, "bench")
        body = jsonenc.dumpb({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                              "params": {"name": "add", "arguments": {"a": 1, "b": 2}}})
        await connection.serve(connection.request(connection.parse(body), version="2025-03-26"))  # type: ignore[arg-type]

    asyncio.run(one())
    item = list(kept.items[-1])
    if session:
        item[3] = Session(secrets.token_urlsafe(32), "2025-11-25")
    db = SQLiteRecords(f"{scratch}/db")
    ids = RecordIds()
    now = time.time()
    batch: list[Any] = []
    for _ in range(count):
        copy = list(item)
        copy[0], copy[8] = ids.next(), dict(item[8])
        if what == "write":
            batch.append(tuple(copy))
            if len(batch) == BATCH:
                store.writes.write(batch)
                batch = []
            continue
        made = capture.build(tuple(copy), lambda _: None, now, now + 3600)
        if what == "store" and made is not None:
            batch.append(made[0])
            if len(batch) == BATCH:
                db.put_many(batch, {}, 10**6)
                batch = []


def count(items: int, what: str, session: bool) -> int:
    """Instructions of every thread of one run (exp-bbv's log)."""
    with tempfile.TemporaryDirectory() as tmp:
        argv = ["valgrind", "--tool=exp-bbv", "--instr-count-only=yes", f"--bb-out-file={tmp}/bbv",
                f"--log-file={tmp}/log", sys.executable, __file__, "--child", "--items", str(items), "--what", what]
        if not session:
            argv.append("--no-session")
        subprocess.run(argv, check=True, capture_output=True, env=dict(os.environ, PYTHONHASHSEED="0"))
        with open(f"{tmp}/log") as log:
            return sum(int(found) for found in re.findall(r"Total instructions:\s+(\d+)", log.read()))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--what", choices=("build", "store", "write"), default="write")
    parser.add_argument("--no-session", action="store_true", help="a sessionless call's item")
    parser.add_argument("--items", type=int, default=BATCH, help="N (the longer run: 11 N)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        run(args.items, args.what, not args.no_session)
        sys.exit(0)
    low = count(args.items, args.what, not args.no_session)
    high = count(11 * args.items, args.what, not args.no_session)
    print(f"{args.what}{'' if args.no_session else ', with a session'}: "
          f"{(high - low) / (10 * args.items):,.0f} instructions a record")
