"""The measurements, each bounded in time: cold start, load rounds, the 1 MB result, held streams.

Everything that compares servers is interleaved: a round visits every server (rotated order),
so a neighbour's burst on the shared host hits all of them, and ratios are taken per round.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Callable
from typing import Any

from . import mcp, procs, wrk
from .http import Connection
from .matrix import Entry, Process

HOST = "127.0.0.1"


def rotate(items: list[Any], k: int) -> list[Any]:
    if not items:
        return items
    k %= len(items)
    return items[k:] + items[:k]


def pct(values: list[float], p: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


async def cold_start(
    processes: list[Process],
    make: Callable[[Process], procs.ServerProcess],
    runs: int,
    timeout: float,
    log: Callable[[str], None],
) -> dict[str, Any]:
    """Spawn -> first ``initialize`` answered (polled every 5 ms), ``runs`` interleaved rounds."""
    times: dict[str, list[float | None]] = {p.key: [] for p in processes}
    for r in range(runs):
        for p in rotate(list(processes), r):
            server = make(p)
            t0 = server.start()
            try:
                t1 = await mcp.wait_ready(HOST, p.port, timeout)
            finally:
                server.stop()
            times[p.key].append(round((t1 - t0) * 1000, 1) if t1 else None)
            await asyncio.sleep(0.2)
        log(f"cold start round {r + 1}/{runs}: " + ", ".join(f"{k}={v[-1]}ms" for k, v in times.items()))
    out = {}
    for key, runs_ms in times.items():
        ok = [t for t in runs_ms if t is not None]
        out[key] = {"runs_ms": runs_ms, "median_ms": statistics.median(ok) if ok else None}
    return out


async def load_rounds(
    entries: list[Entry],
    pids: dict[str, int],
    sessions: dict[str, str | None],
    ports: dict[str, int],
    conc: list[int],
    rounds: int,
    seconds: float,
    warmup: float,
    log: Callable[[str], None],
) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """wrk cells: every entry x concurrency x round; returns ``{entry: {conc: [cell per round]}}``."""

    def prepared(e: Entry) -> tuple[str, dict[str, str], str]:
        body = mcp.call_body(e.tool, mcp.ADD_ARGS, e.progress, templated=True, era=e.era)
        return body, mcp.entry_headers(e, sessions[e.name]), mcp.ADD_EXPECT

    async def cell(e: Entry, c: int, secs: float) -> dict[str, Any]:
        body, headers, expect = prepared(e)
        return await asyncio.to_thread(wrk.run, ports[e.process], c, secs, body, headers, expect, pids[e.process])

    if warmup > 0:
        for e in entries:
            await cell(e, 16, warmup)
        log("warm-up done")
    out: dict[str, dict[str, list[dict[str, Any]]]] = {e.name: {} for e in entries}
    for r in range(rounds):
        for i, c in enumerate(conc):
            todo = [e for e in entries if e.conc is None or c in e.conc]
            for e in rotate(todo, r + i):
                result = await cell(e, c, seconds)
                result["round"] = r
                out[e.name].setdefault(str(c), []).append(result)
            log(
                f"round {r + 1}/{rounds} c={c}: "
                + ", ".join(
                    f"{e.name}={out[e.name][str(c)][-1]['rps']:.0f}/s,{out[e.name][str(c)][-1].get('cpu_us_per_req')}us"
                    for e in todo
                )
            )
    return out


async def big_result(
    entry: Entry, port: int, pid: int, session: str | None, n: int, calls: int, seconds: float
) -> dict[str, Any]:
    """Sequential ``big(n)`` calls on one kept-alive connection (the first one not timed)."""
    conn = Connection(HOST, port)
    times: list[float] = []
    wire = body_len = 0
    content_type = ""
    ok = True
    holds = "the data"
    cpu0 = None
    deadline = time.perf_counter() + seconds
    try:
        for i in range(calls + 1):
            t0 = time.perf_counter()
            reply = await mcp.call(conn, entry, session, {"n": n}, tool="big", timeout=30)
            took = time.perf_counter() - t0
            whole = reply.body.count(b"x" * 1000) >= n // 1000
            if reply.status == 200 and not whole and b'"resource_link"' in reply.body:  # ours: max_inline_bytes
                holds = "a link"
            elif reply.status != 200 or not whole:
                ok = False
            if i == 0:
                cpu0 = procs.cpu_seconds(pid)
                wire, body_len, content_type = reply.raw_size, len(reply.body), reply.header("content-type")
                continue
            times.append(took * 1000)
            if time.perf_counter() > deadline and len(times) >= 3:
                break
    finally:
        await conn.close()
    cpu_ms = (procs.cpu_seconds(pid) - cpu0) * 1000 / len(times) if times and cpu0 is not None else None
    return {
        "n": n,
        "calls": len(times),
        "median_ms": round(statistics.median(times), 2) if times else None,
        "min_ms": round(min(times), 2) if times else None,
        "cpu_ms_per_call": round(cpu_ms, 2) if cpu_ms is not None else None,
        "wire_bytes": wire,
        "body_bytes": body_len,
        "text_copies": round(body_len / n, 2),
        "content_type": content_type,
        "ok": ok,
        "holds": holds,
    }


async def _open_stream(port: int, session: str | None, gate: asyncio.Semaphore) -> asyncio.StreamWriter | str:
    async with gate:
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, port), 10)
        except (OSError, asyncio.TimeoutError) as exc:
            return f"connect: {exc!r}"
        lines = [
            "GET /mcp HTTP/1.1",
            f"Host: {HOST}:{port}",
            "Accept: text/event-stream",
            f"MCP-Protocol-Version: {mcp.PROTOCOL}",
        ]
        if session:
            lines.append(f"Mcp-Session-Id: {session}")
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError) as exc:
            writer.close()
            return f"head: {exc!r}"
        status = head.split(b" ", 2)[1].decode()
        if status != "200":
            writer.close()
            return f"HTTP {status}"
        return writer


async def _calls_meanwhile(entry: Entry, port: int, pid: int, seconds: float) -> dict[str, Any]:
    """``add`` called back to back (5 ms apart) on one session for ``seconds``: latencies, peak RSS."""
    caller = Connection(HOST, port)
    session = await mcp.open_session(caller)
    latencies: list[float] = []
    tried = 0
    rss_peak = 0
    deadline = time.perf_counter() + seconds
    try:
        while time.perf_counter() < deadline:
            tried += 1
            t = time.perf_counter()
            try:
                reply = await mcp.call(caller, entry, session, timeout=5)
                if reply.status == 200 and mcp.ADD_EXPECT.encode() in reply.body:
                    latencies.append((time.perf_counter() - t) * 1000)
            except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError):
                await caller.close()
            if tried % 20 == 0:
                rss_peak = max(rss_peak, procs.rss_kib(pid))
            await asyncio.sleep(0.005)
    finally:
        await caller.close()
    return {
        "ok": len(latencies),
        "tried": tried,
        "p50_ms": round(statistics.median(latencies), 2) if latencies else None,
        "p99_ms": round(pct(latencies, 99), 2) if latencies else None,
        "rss_peak_kib": rss_peak,
    }


async def held_streams(
    entry: Entry, port: int, pid: int, count: int, hold: float, open_parallel: int = 32
) -> dict[str, Any]:
    """``count`` sessions each holding a GET stream for ``hold`` s while ``add`` keeps being called.

    The same call loop runs first for ``hold`` s with no stream held: the idle latency the held
    one is compared with.
    """
    idle = await _calls_meanwhile(entry, port, pid, hold)
    res: dict[str, Any] = {
        "requested": count,
        "rss_before_kib": procs.rss_kib(pid),
        "threads_before": procs.threads(pid),
        "idle_call_p50_ms": idle["p50_ms"],
        "idle_call_p99_ms": idle["p99_ms"],
        "idle_calls_ok": idle["ok"],
    }
    conn = Connection(HOST, port)
    try:
        sessions = [await mcp.open_session(conn) for _ in range(count)]
    finally:
        await conn.close()
    res["rss_sessions_kib"] = procs.rss_kib(pid)
    gate = asyncio.Semaphore(open_parallel)
    t0 = time.perf_counter()
    opened = await asyncio.gather(*(_open_stream(port, s, gate) for s in sessions))
    res["open_s"] = round(time.perf_counter() - t0, 2)
    writers = [w for w in opened if not isinstance(w, str)]
    failures = sorted({w for w in opened if isinstance(w, str)})
    res.update(opened=len(writers), failed=count - len(writers), failure_sample=failures[:3])
    held = await _calls_meanwhile(entry, port, pid, hold)
    res["rss_held_kib"] = max(held["rss_peak_kib"], procs.rss_kib(pid))
    res["threads_held"] = procs.threads(pid)
    res["calls_ok"], res["calls_tried"] = held["ok"], held["tried"]
    res["call_p50_ms"], res["call_p99_ms"] = held["p50_ms"], held["p99_ms"]
    per = max(1, len(writers))
    res["kib_per_stream"] = round((res["rss_held_kib"] - res["rss_before_kib"]) / per, 1)
    res["kib_per_stream_only"] = round((res["rss_held_kib"] - res["rss_sessions_kib"]) / per, 1)
    for w in writers:
        w.close()
    await asyncio.sleep(1.5)
    res["rss_after_kib"], res["threads_after"] = procs.rss_kib(pid), procs.threads(pid)
    probe = Connection(HOST, port)
    try:
        reply = await mcp.call(probe, entry, await mcp.open_session(probe), timeout=10)
        res["alive_after"] = reply.status == 200
    except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, RuntimeError) as exc:
        res["alive_after"] = False
        res["alive_error"] = repr(exc)
    finally:
        await probe.close()
    return res
