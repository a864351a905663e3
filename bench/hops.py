#!/usr/bin/env python3
"""How many of our modules one ``tools/call`` passes through, and how often it crosses from one to another.

    .venv/bin/python bench/hops.py                # both transports, the figures as a table
    .venv/bin/python bench/hops.py --json         # the same as JSON
    .venv/bin/python bench/hops.py --trace http   # also print the sequence of modules entered

A server with one sync tool ``add(a, b)`` is served in this process: over Streamable HTTP on a
loopback port (``MCPServer.start()``, its event loop in a thread) and over stdio (the stdio
transport on a pair of pipes). The client (``http.client`` or raw lines on the pipe) opens the
session, makes one warm-up call, then makes the measured call with a profiler installed in every
thread (``sys.setprofile`` / ``threading.setprofile``). Each Python function entered whose module
belongs to ``nanohubmcp`` is recorded in the order entered (one sequence over the threads that
serve the call: the event loop's and the worker pool's; the provenance writer's thread, which
stores records in batches after their calls were answered, is not on the call path and is left
out, else a batch that happens to land inside the window adds ~15 hops to that call). Reported:

- **modules**: the distinct ``nanohubmcp`` modules entered while the call was served;
- **hops**: pairs of consecutive recorded functions that belong to different modules;
- **functions**: the recorded function entries;
- **after the answer** (HTTP): those of the hops made once the response's bytes were written
  (Tornado's ``HTTP1Connection.finish`` entered): the request's finish on the loop (``TCP_NODELAY``
  kept, the access log, the handler's ``on_finish``, the connection's next request started).

Over HTTP a measured call ends when the server's event loop is idle again after the answer (its
thread blocks in ``select`` with no callback ready), not when the client has read the answer:
the request's finish runs on the loop after the bytes left, and the client's thread used to stop
the recorder before or after it, at random (35 or 39 hops a call on the same commit).

A garbage collection that falls inside the window runs Python functions that are not the call's:
the collector's callbacks (``calls/slow_calls``' timing of collections) and any finalizer of ours.
The recorder brackets every collection with callbacks of its own (first and last in
``gc.callbacks``) and keeps what is entered in between apart: the call's figures leave it out, and
the hops it added to the sequence are reported on their own (**of a garbage collection in the
window**, with the number of measured calls that had one). ``--gc-threshold N`` sets the
collector's first threshold to N for the run, to have collections fall inside the window.

The figures count structure, not time: they do not depend on the machine's load. They depend a
little on thread interleaving (the worker thread running the tool and the loop thread), so the
median of ``--rounds`` measured calls is reported. Not a test: nothing asserts a figure.
"""

from __future__ import annotations

import argparse
import gc
import http.client
import itertools
import json
import os
import statistics
import sys
import threading
import time
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nanohubmcp import MCPServer  # noqa: E402

VERSION = "2025-11-25"
INIT = {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "hops", "version": "1"}}
CALL = {"name": "add", "arguments": {"a": 1.5, "b": 2.25}}


OFF_THE_CALL_PATH = {"nanohubmcp-provenance"}
"""Threads of ours that work after a call was answered (records written in batches)."""


ANSWER_WRITTEN = ("tornado.http1connection", "finish")
"""The function entered once an HTTP response's bytes were handed to the socket (module, name)."""


class Recorder:
    """Records the ``nanohubmcp`` module of each Python function entered, in every thread, while on.

    Over HTTP it also notes where in the sequence the answer was written (:data:`ANSWER_WRITTEN`,
    ``answered``) and sets ``settled`` when that thread's event loop is idle afterwards. An entry
    made while a garbage collection runs (between the recorder's own ``gc.callbacks``, first and
    last in the list), and any entry of a function in ``gc.callbacks``, is marked as the
    collection's, not the call's."""

    def __init__(self) -> None:
        self.on = False
        self.modules: list[str] = []
        self.functions: list[str] = []
        self.collected: list[bool] = []
        self.answered: int | None = None
        self.settled = threading.Event()
        self._loop_thread: int | None = None
        self._collecting: int | None = None
        """The thread a running garbage collection was started in (None: none runs)."""
        self._callbacks: set[Any] = set()
        """The code of the collector's callbacks: always the collection's, wherever entered."""

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if not self.on or event != "call":
            return
        thread = threading.current_thread()
        if thread.name in OFF_THE_CALL_PATH:
            return
        name = frame.f_globals.get("__name__", "")
        if name == "nanohubmcp" or name.startswith("nanohubmcp."):
            self.modules.append(name)
            self.functions.append(f"{name}:{frame.f_code.co_name}")
            self.collected.append(thread.ident == self._collecting or frame.f_code in self._callbacks)
        elif (name, frame.f_code.co_name) == ANSWER_WRITTEN and self.answered is None:
            self.answered = len(self.modules)
            self._loop_thread = thread.ident
        elif name == "selectors" and frame.f_code.co_name == "select" and thread.ident == self._loop_thread:
            # asyncio's loop selects with timeout 0 while a callback is ready: > 0 or None is idle.
            timeout = frame.f_locals.get("timeout")
            if timeout is None or timeout > 0:
                self.settled.set()

    def _collection_starts(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._collecting = threading.get_ident()

    def _collection_ends(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "stop":
            self._collecting = None

    def install(self) -> None:
        threading.setprofile(self)
        sys.setprofile(self)

    def start(self) -> None:
        self.modules = []
        self.functions = []
        self.collected = []
        self.answered = None
        self._loop_thread = None
        self.settled.clear()
        # Every other callback (the server's, added when its worker pool was made) runs between these two.
        self._forget_collections()
        gc.callbacks.insert(0, self._collection_starts)
        gc.callbacks.append(self._collection_ends)
        self._callbacks = {getattr(callback, "__code__", None) for callback in gc.callbacks}
        self.on = True

    def _forget_collections(self) -> None:
        for callback in (self._collection_starts, self._collection_ends):
            while callback in gc.callbacks:
                gc.callbacks.remove(callback)
        self._collecting = None

    def stop(self) -> dict[str, Any]:
        self.on = False
        self._forget_collections()
        everything = self.modules
        seq = [m for m, gc_entry in zip(everything, self.collected, strict=True) if not gc_entry]
        entries = [f for f, gc_entry in zip(self.functions, self.collected, strict=True) if not gc_entry]
        hops = sum(1 for a, b in itertools.pairwise(seq) if a != b)
        # The hops the collections added: those of the whole sequence less those of the call's alone.
        gc_hops = sum(1 for a, b in itertools.pairwise(everything) if a != b) - hops
        answered = None if self.answered is None else self.answered - sum(self.collected[:self.answered])
        # A hop whose second function was entered after the answer was written is one of the finish's.
        after = None if answered is None else sum(
            1 for k in range(max(answered, 1), len(seq)) if seq[k - 1] != seq[k])
        return {"modules": len(set(seq)), "hops": hops, "functions": len(seq), "after_answer": after,
                "answered": answered, "sequence": seq, "entries": entries,
                "gc_hops": gc_hops, "gc_functions": sum(self.collected)}


PROVENANCE = {"on": True}


def server() -> MCPServer:
    # the inline lane on (off by default), as the benchmark servers run it: a steady call of add is on the loop
    srv = MCPServer("hops", job_store="memory", provenance=PROVENANCE["on"], inline_quick_calls=True)

    @srv.tool()
    def add(a: float, b: float) -> float:
        """Sum of two numbers."""
        return a + b

    return srv


def over_http(rec: Recorder, rounds: int, warm: int = 1) -> list[dict[str, Any]]:
    srv = server().start(port=0)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}

        def post(msg: dict[str, Any], sid: str | None) -> tuple[str | None, bytes]:
            h = dict(headers)
            if sid:
                h["Mcp-Session-Id"] = sid
                h["MCP-Protocol-Version"] = VERSION
            conn.request("POST", "/mcp", body=json.dumps(msg), headers=h)
            resp = conn.getresponse()
            body = resp.read()
            if resp.status >= 300:
                raise SystemExit(f"HTTP {resp.status}: {body[:200]!r}")
            return resp.getheader("Mcp-Session-Id"), body

        sid, _ = post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INIT}, None)
        post({"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)
        figures = []
        for i in range(rounds + warm):
            msg = {"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": CALL}
            if i >= warm:
                rec.start()
            _, body = post(msg, sid)
            if i >= warm:
                # The request's finish runs on the loop after the bytes left: wait for it, so that
                # every measured call counts it (else a race with this thread decides).
                if not rec.settled.wait(10):
                    raise SystemExit("the server's loop did not go idle within 10 s of the answer")
                figures.append(rec.stop())
            if b"3.75" not in body:
                raise SystemExit(f"unexpected answer: {body[:200]!r}")
            time.sleep(0.05)  # let the server finish what follows an answer before the next call
        conn.close()
        return figures
    finally:
        srv.stop()


def over_stdio(rec: Recorder, rounds: int, warm: int = 1) -> list[dict[str, Any]]:
    import asyncio

    from nanohubmcp.transports.stdio import StdioTransport

    srv = server()
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    transport = StdioTransport(srv, in_fd=in_r, out_fd=out_w)
    thread = threading.Thread(target=lambda: asyncio.run(transport.serve()), daemon=True)
    thread.start()
    reader = os.fdopen(out_r, "rb")

    def ask(msg: dict[str, Any]) -> bytes | None:
        os.write(in_w, json.dumps(msg).encode() + b"\n")
        return reader.readline() if "id" in msg else None

    ask({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INIT})
    ask({"jsonrpc": "2.0", "method": "notifications/initialized"})
    figures = []
    for i in range(rounds + warm):
        if i >= warm:
            rec.start()
        line = ask({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": CALL})
        if i >= warm:
            figures.append(rec.stop())
        if not line or b"3.75" not in line:
            raise SystemExit(f"unexpected answer: {line!r}")
        time.sleep(0.05)
    os.close(in_w)
    thread.join(10)
    return figures


def summary(figures: list[dict[str, Any]]) -> dict[str, Any]:
    best = sorted(figures, key=lambda f: f["hops"])[len(figures) // 2]
    after = [f["after_answer"] for f in figures if f["after_answer"] is not None]
    return {
        "modules": int(statistics.median(f["modules"] for f in figures)),
        "hops": int(statistics.median(f["hops"] for f in figures)),
        "hops_min": min(f["hops"] for f in figures),
        "functions": int(statistics.median(f["functions"] for f in figures)),
        "after_answer": int(statistics.median(after)) if after else None,
        "gc_calls": sum(1 for f in figures if f["gc_functions"]),
        "gc_hops": [f["gc_hops"] for f in figures if f["gc_functions"]],
        "calls": len(figures),
        "answered": best["answered"],
        "module_list": sorted(set(best["sequence"])),
        "sequence": best["sequence"],
        "entries": best["entries"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5, help="measured calls per transport (median reported)")
    ap.add_argument("--warm", type=int, default=1,
                    help="calls before the measured ones (1: a first call's path; 10: the steady state, "
                         "once a quick sync tool runs on the loop)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--provenance", choices=["on", "off"], default="on",
                    help="provenance records (on by default; off: the call path without the record)")
    ap.add_argument("--trace", choices=["http", "stdio"], help="print the module sequence of one transport")
    ap.add_argument("--modules", action="store_true", help="list the modules entered")
    ap.add_argument("--gc-threshold", type=int, metavar="N",
                    help="the collector's first threshold for the run (small: collections fall "
                         "inside the window; their hops are counted apart from the call's)")
    ap.add_argument("--functions", action="store_true",
                    help="with --trace: print every function entered (module:function), a '>' marking each hop")
    args = ap.parse_args()
    PROVENANCE["on"] = args.provenance == "on"
    rec = Recorder()
    rec.install()
    if args.gc_threshold is not None:
        gc.set_threshold(args.gc_threshold, *gc.get_threshold()[1:])
    results = {"streamable-http": summary(over_http(rec, args.rounds, args.warm)),
               "stdio": summary(over_stdio(rec, args.rounds, args.warm))}
    sys.setprofile(None)
    threading.setprofile(None)  # type: ignore[arg-type]
    if args.json:
        print(
            json.dumps(
                {k: {x: v[x] for x in ("modules", "hops", "hops_min", "functions", "after_answer", "gc_calls",
                                       "gc_hops", "calls", "module_list")}
                 for k, v in results.items()},
                indent=2,
            )
        )
    else:
        print(f"{'transport':<16} {'modules':>8} {'hops':>6} {'functions':>10} {'after the answer':>17}")
        for name, r in results.items():
            after = "-" if r["after_answer"] is None else r["after_answer"]
            print(f"{name:<16} {r['modules']:>8} {r['hops']:>6} {r['functions']:>10} {after:>17}")
        for name, r in results.items():
            if r["gc_calls"]:
                print(f"{name}: a garbage collection fell in {r['gc_calls']} of the {r['calls']} measured calls; "
                      f"hops of a garbage collection in the window (not counted above): "
                      f"{', '.join(map(str, r['gc_hops']))}")
        if args.modules:
            for name, r in results.items():
                print(f"\n{name}:\n  " + "\n  ".join(r["module_list"]))
    if args.trace:
        chosen = results["streamable-http" if args.trace == "http" else "stdio"]
        answered = chosen["answered"]
        mark = "-- the answer is written (the request's finish follows) --"
        if args.functions:
            before = None
            for index, entry in enumerate(chosen["entries"]):
                if index == answered:
                    print(mark)
                mod = entry.split(":", 1)[0]
                print(("> " if mod != before else "  ") + entry)
                before = mod
            return
        last = None
        for index, mod in enumerate(chosen["sequence"]):
            if index == answered:
                print(mark)
            if mod != last:
                print(mod)
            last = mod


if __name__ == "__main__":
    main()
