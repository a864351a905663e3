"""Load with wrk (one thread, keep-alive, ``lua/call.lua``) and the server CPU it cost.

A cell = one server, one concurrency, ``duration`` seconds. Besides wrk's figures it records the
server's user+system CPU over the cell divided by the requests answered (steadier than req/s on a
shared host) and the host's ListenOverflows delta.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from . import procs

LUA = Path(__file__).resolve().parent.parent / "lua" / "call.lua"


def run(
    port: int,
    conc: int,
    seconds: float,
    body: str,
    headers: dict[str, str],
    expect: str,
    server_pid: int | None = None,
    path: str = "/mcp",
) -> dict[str, Any]:
    """One wrk cell; bounded by ``seconds`` + 30 s. Returns wrk's summary plus CPU figures."""
    env = dict(
        os.environ,
        MCPB_BODY=body,
        MCPB_EXPECT=expect,
        MCPB_HEADERS="\n".join(f"{k}: {v}" for k, v in headers.items() if k != "Content-Type"),
    )
    argv = [
        "wrk",
        "-t1",
        f"-c{conc}",
        f"-d{max(1, round(seconds))}s",
        "--timeout",
        "10s",
        "-s",
        str(LUA),
        f"http://127.0.0.1:{port}{path}",
    ]
    cpu0 = procs.cpu_seconds(server_pid) if server_pid else None
    overflow0 = procs.listen_overflows()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=seconds + 30)
    cpu1 = procs.cpu_seconds(server_pid) if server_pid else None
    overflow1 = procs.listen_overflows()
    line = next((ln for ln in done.stdout.splitlines() if ln.startswith("MCPB ")), None)
    if line is None:
        raise RuntimeError(f"wrk gave no summary (rc {done.returncode}): {done.stderr[-400:]}")
    cell: dict[str, Any] = json.loads(line[5:])
    cell["conc"] = conc
    cell["rps"] = cell["requests"] / (cell["duration_us"] / 1e6) if cell["duration_us"] else 0.0
    if cpu0 is not None and cpu1 is not None and cell["requests"]:
        cell["cpu_s"] = round(cpu1 - cpu0, 3)
        cell["cpu_us_per_req"] = round((cpu1 - cpu0) * 1e6 / cell["requests"], 1)
    if overflow0 is not None and overflow1 is not None:
        cell["listen_overflows"] = overflow1 - overflow0
    # Little's law: req/s x mean latency ~ connections in use; far below conc = stalled connections
    cell["busy_conns"] = round(cell["rps"] * cell["mean_us"] / 1e6, 2)
    return cell
