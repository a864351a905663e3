#!/usr/bin/env python3
"""Python opcodes of one warm ``tools/call`` over Streamable HTTP, per function: ours against the ceiling.

    PYTHONPATH=<checkout> .venv/bin/python bench/call_opcodes.py            # ours, provenance off
    PYTHONPATH=<checkout> .venv/bin/python bench/call_opcodes.py --provenance on
    .venv/bin/python bench/call_opcodes.py --ceiling                         # servers/ceiling_tornado.py
    .venv/bin/python bench/call_opcodes.py --compare A.json B.json          # what B has that A has not

The server runs in this process on its own thread (ours: as ``bench/hops.py`` builds it, ``add(a, b)``
served on a real socket; the ceiling: its ``Endpoint`` on a bare Tornado ``HTTPServer``), the client
is ``http.client`` on one keep-alive connection, in the handshake era (a session). After ``--warm``
calls, ``--calls`` calls are traced with ``sys.settrace`` (``f_trace_opcodes``) in the server's
threads (not the provenance writer's): each function's own opcodes, its inclusive opcodes (a coroutine
counted at each resumption), how often it was entered, the exceptions raised in it and the C functions
it called. Counted, never timed: the same for every run of a given tree, whatever the host's load.
Opcodes are a proxy for where callgrind's instructions go in our Python (one opcode ≈ 30-40
instructions on this path; C work such as a raised exception's traceback or the JSON codec is not in
them): use it to find the function, then count instructions (``bench/edge_cost.py``,
``bench/run.py --skip`` all but ``instructions``). Not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import http.client
import json
import re
import socket
import sys
import threading
import time
from pathlib import Path
from types import FrameType
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = f"{HERE.parent}/"
sys.path.insert(0, str(HERE))
from hops import CALL, INIT, PROVENANCE, VERSION, server  # noqa: E402


class Tracer:
    """Per-function opcode counts of the server's threads while :attr:`on`."""

    def __init__(self) -> None:
        self.on = False
        self.total = 0
        self.own: collections.Counter[str] = collections.Counter()
        self.inclusive: collections.Counter[str] = collections.Counter()
        self.entered: collections.Counter[str] = collections.Counter()
        self.raised: collections.Counter[str] = collections.Counter()
        self.c_calls: collections.Counter[str] = collections.Counter()
        self._stacks: dict[int, list[tuple[str, int]]] = {}

    @staticmethod
    def name(code: Any) -> str:
        where = code.co_filename
        if "/site-packages/" in where:
            where = where.split("/site-packages/", 1)[1]
        elif "/lib/python3." in where:
            where = where.split("/lib/python3.", 1)[1].split("/", 1)[-1]
        elif where.startswith(REPO):
            where = where[len(REPO):]
        return f"{where}:{code.co_firstlineno}:{code.co_qualname}"

    def local(self, frame: FrameType, event: str, arg: Any) -> Any:
        if event == "opcode":
            if self.on:
                self.own[self.name(frame.f_code)] += 1
                self.total += 1
        elif event == "return":
            stack = self._stacks.get(threading.get_ident())
            if stack:
                key, start = stack.pop()
                if self.on:
                    self.inclusive[key] += self.total - start
        elif event == "exception" and self.on:
            self.raised[f"{arg[0].__name__} in {self.name(frame.f_code)}"] += 1
        return self.local

    def call(self, frame: FrameType, event: str, arg: Any) -> Any:
        if threading.current_thread().name.startswith("nanohubmcp-provenance"):
            return None
        frame.f_trace_opcodes = True
        key = self.name(frame.f_code)
        self._stacks.setdefault(threading.get_ident(), []).append((key, self.total))
        if self.on:
            self.entered[key] += 1
        return self.local

    def profile(self, frame: FrameType, event: str, arg: Any) -> None:
        if self.on and event == "c_call":
            owner = getattr(arg, "__module__", None) or type(getattr(arg, "__self__", None)).__name__
            self.c_calls[f"{owner}.{getattr(arg, '__qualname__', '?')} from {self.name(frame.f_code)}"] += 1


def ceiling_port() -> int:
    """Serve servers/ceiling_tornado.py's endpoint on a thread of its own; its port."""
    sys.path.insert(0, str(HERE / "servers"))
    import ceiling_tornado
    import tornado.web
    from tornado.httpserver import HTTPServer

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    sock.setblocking(False)
    loop = asyncio.new_event_loop()

    async def listen() -> None:
        HTTPServer(tornado.web.Application([(r"/mcp", ceiling_tornado.Endpoint)])).add_sockets([sock])

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(listen())
        loop.run_forever()

    threading.Thread(target=run, daemon=True, name="ceiling").start()
    return int(sock.getsockname()[1])


def measure(ceiling: bool, calls: int, warm: int) -> dict[str, Any]:
    tracer = Tracer()
    threading.settrace(tracer.call)
    threading.setprofile(tracer.profile)
    ours = None if ceiling else server().start(port=0)
    port = ceiling_port() if ours is None else ours.port
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        base = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}

        def post(msg: dict[str, Any], sid: str | None) -> tuple[str | None, bytes]:
            headers = dict(base, **({"Mcp-Session-Id": sid, "MCP-Protocol-Version": VERSION} if sid else {}))
            conn.request("POST", "/mcp", body=json.dumps(msg), headers=headers)
            reply = conn.getresponse()
            return reply.getheader("Mcp-Session-Id"), reply.read()

        sid, _ = post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INIT}, None)
        post({"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)
        for i in range(warm + calls):
            if i == warm:
                time.sleep(0.2)  # what the warm-up left the loop to do is done untraced
                tracer.on = True
            _, body = post({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": CALL}, sid)
            if b"3.75" not in body:
                raise SystemExit(f"unexpected answer: {body[:200]!r}")
            time.sleep(0.05)  # the request's finish runs on the loop after the answer: inside the window
        time.sleep(0.2)
        tracer.on = False
        conn.close()
    finally:
        threading.settrace(None)  # type: ignore[arg-type]
        threading.setprofile(None)  # type: ignore[arg-type]
        if ours is not None:
            ours.stop()

    def per_call(counter: collections.Counter[str]) -> dict[str, float]:
        return {k: round(v / calls, 1) for k, v in counter.most_common()}

    return {"opcodes": tracer.total / calls, "own": per_call(tracer.own), "inclusive": per_call(tracer.inclusive),
            "entered": per_call(tracer.entered), "raised": per_call(tracer.raised),
            "c_calls": per_call(tracer.c_calls)}


def show(figures: dict[str, Any], top: int) -> None:
    print(f"opcodes per call: {figures['opcodes']:,.0f}")
    for part in ("inclusive", "own", "raised", "c_calls"):
        print(f"\n{part}:")
        for key, value in list(figures[part].items())[:top]:
            entered = figures["entered"].get(key)
            print(f"{value:9,.1f}  {'' if entered is None else f'{entered:4.1f}x '}{key}")


def _by_name(counts: dict[str, float]) -> dict[str, float]:
    """``counts`` keyed without line numbers (two trees' functions seldom start on the same line)."""
    out: dict[str, float] = collections.defaultdict(float)
    for key, value in counts.items():
        out[re.sub(r":\d+:", ":", key)] += value
    return out


def compare(a: dict[str, Any], b: dict[str, Any], top: int) -> None:
    print(f"opcodes per call: {a['opcodes']:,.0f} -> {b['opcodes']:,.0f} ({b['opcodes'] - a['opcodes']:+,.0f})")
    for part in ("own", "raised", "c_calls"):
        before, after = _by_name(a[part]), _by_name(b[part])
        moved = sorted(set(before) | set(after), key=lambda k: -abs(after.get(k, 0) - before.get(k, 0)))
        print(f"\n{part} (B - A):")
        for key in moved[:top]:
            delta = after.get(key, 0) - before.get(key, 0)
            if abs(delta) >= 1:
                print(f"{delta:+9,.1f}  {key}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ceiling", action="store_true", help="trace the bare-Tornado ceiling instead of ours")
    ap.add_argument("--provenance", choices=["on", "off"], default="off")
    ap.add_argument("--calls", type=int, default=20)
    ap.add_argument("--warm", type=int, default=10)
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--json", type=Path, help="also write the figures here")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"), help="two --json files: B - A")
    a = ap.parse_args()
    if a.compare:
        compare(*(json.loads(p.read_text()) for p in a.compare), a.top)
        return
    PROVENANCE["on"] = a.provenance == "on"
    figures = measure(a.ceiling, a.calls, a.warm)
    if a.json:
        a.json.write_text(json.dumps(figures, indent=1))
    show(figures, a.top)


if __name__ == "__main__":
    main()
