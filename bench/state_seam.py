#!/usr/bin/env python3
"""Instructions per request of the session state seam alone: memory state against Redis state.

    python3 bench/state_seam.py                 # memory and Redis, 2000 and 6000 requests each
    python3 bench/state_seam.py --stream        # each request also opens a POST response stream

What a request naming a session costs the state layer, without HTTP or the call: the session
lookup (memory: ``SessionStore.get``; Redis: this process's held copy, or a load) and, with Redis,
the change check before the response; ``--stream`` adds the POST response stream a request with
related messages opens. Each mode runs under ``valgrind --tool=exp-bbv`` twice (``--low`` and
``--high`` requests); the difference of the totals ÷ the difference of the counts is one request's
instructions (start-up cancels out). Redis state runs against a redis-server started here, with a
lease covering the run (a session in use). Needs valgrind and redis-server; prints one line per mode.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path


async def requests(count: int, mode: str, url: str, stream: bool) -> None:
    from nanohubmcp.server.wire.sessions import SessionStore

    store = SessionStore()
    session = store.create("2025-06-18")
    if mode == "memory":
        for i in range(count):
            found = store.get(session.id)
            if stream and found is not None:
                found.new_stream(i).close()
        return
    from nanohubmcp.server.wire.replication import Replication
    from nanohubmcp.state import open_shared
    from nanohubmcp.state.url import parse

    state = open_shared(parse(url), "seam", idle_seconds=600)
    assert state is not None
    state.sessions.lease = 600.0  # type: ignore[attr-defined]
    state.start(asyncio.get_running_loop())
    while not state.sessions.listening:  # type: ignore[attr-defined]
        await asyncio.sleep(0.01)
    replication = Replication(store, state)
    session = store.create("2025-06-18")
    await replication.save(session)
    for i in range(count):  # as Connection.receive and .serve do
        found = replication.held(session.id) or await replication.lookup(session.id)
        assert found is not None
        if stream:
            found.new_stream(i).close()
        if replication.changed(found):
            await replication.save(found)
    await state.close()


def total(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "valgrind.log"
        subprocess.run(
            ["valgrind", "--tool=exp-bbv", "--instr-count-only=yes", f"--bb-out-file={tmp}/bbv", f"--log-file={log}",
             *argv],
            check=True, env={**os.environ, "PYTHONHASHSEED": "0"}, stdout=subprocess.DEVNULL,
        )
        return sum(int(n) for n in re.findall(r"Total instructions:\s+(\d+)", log.read_text()))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--low", type=int, default=2000)
    p.add_argument("--high", type=int, default=6000)
    p.add_argument("--stream", action="store_true")
    p.add_argument("--run", nargs=2, metavar=("MODE", "COUNT"), help=argparse.SUPPRESS)  # the measured child
    p.add_argument("--url", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.run:
        asyncio.run(requests(int(a.run[1]), a.run[0], a.url or "", a.stream))
        return 0
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with tempfile.TemporaryDirectory() as work:
        redis = subprocess.Popen(
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", work],
            stdout=subprocess.DEVNULL,
        )
        try:
            time.sleep(0.5)
            url = f"redis://127.0.0.1:{port}/0"
            for mode in ("memory", "redis"):
                me = [sys.executable, __file__, "--url", url, *(["--stream"] if a.stream else []), "--run", mode]
                low, high = total([*me, str(a.low)]), total([*me, str(a.high)])
                print(f"{mode:8s} {(high - low) / (a.high - a.low):10,.0f} instructions per request", flush=True)
        finally:
            redis.terminate()
            redis.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
