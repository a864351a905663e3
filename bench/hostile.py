"""A hostile-client trial of one example server: schemathesis, a JSON-RPC fuzz, the issue 13 findings.

    python3 bench/hostile.py                       # simple example, 3,000 fuzzed messages
    python3 bench/hostile.py --example simulator --fuzz 5000 --schemathesis /tmp/st/bin/schemathesis

The server runs as its own process (``examples/<name>/start_mcp.py`` with the project's
``.venv``). Before and after the trial the script reads the server's RSS, threads and open
file descriptors from ``/proc``; it counts every 5xx answer and every connection dropped
without an answer. ``--schemathesis`` names a schemathesis executable (install it in a scratch
virtual environment, never in the project's); without it that part is skipped. The report is
printed as markdown (``--out FILE`` writes it too).

Findings re-checked (issue 13): Host and Origin (DNS rebinding), an initialize flood, a huge
batch, odd cancellation ids, a 70 KB header, a body sent before reading, a legacy SSE client
that never reads, SIGTERM.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PYTHON = os.environ.get("NANOHUBMCP_PYTHON") or str(ROOT / ".venv" / "bin" / "python")
ROUTES = ["/mcp", "/", "/messages/", "/tools/{tool}", "/sse", "/openapi.json", "/.well-known/mcp.json"]
METHODS = ["initialize", "ping", "tools/list", "tools/call", "resources/list", "resources/read",
           "resources/templates/list", "prompts/list", "prompts/get", "completion/complete", "logging/setLevel",
           "tasks/get", "tasks/list", "tasks/cancel", "tasks/result", "notifications/cancelled",
           "notifications/initialized", "no/such/method"]
ODD = [None, True, False, 0, -1, 2**63, 1.5, float("1e308"), "", "x" * 3000, [], [1], {}, {"a": None},
       "\u0000", "\ud7ff", [[[[[]]]]], "../../etc/passwd", "{+path}", "%00"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def proc_figures(pid: int) -> dict[str, int]:
    """RSS (KiB), threads and open file descriptors of ``pid``."""
    status = Path(f"/proc/{pid}/status").read_text()
    rss = int(re.search(r"VmRSS:\s+(\d+)", status).group(1))  # type: ignore[union-attr]
    threads = int(re.search(r"Threads:\s+(\d+)", status).group(1))  # type: ignore[union-attr]
    return {"rss_kib": rss, "threads": threads, "fds": len(os.listdir(f"/proc/{pid}/fd"))}


class Tally:
    def __init__(self) -> None:
        self.sent = 0
        self.statuses: dict[int, int] = {}
        self.dropped = 0
        self.examples: list[str] = []

    def note(self, what: str, status: int | None) -> None:
        self.sent += 1
        if status is None:
            self.dropped += 1
        else:
            self.statuses[status] = self.statuses.get(status, 0) + 1
        if (status is None or status >= 500) and len(self.examples) < 10:
            self.examples.append(f"{status}: {what[:200]}")

    @property
    def server_errors(self) -> int:
        return sum(n for s, n in self.statuses.items() if s >= 500)


def request(port: int, method: str, path: str, body: bytes | None, headers: dict[str, str],
            timeout: float = 15.0) -> tuple[int | None, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    except (OSError, http.client.HTTPException):
        return None, {}, b""
    finally:
        conn.close()


JSON = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def initialize(port: int, version: str = "2025-11-25") -> str | None:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                       "params": {"protocolVersion": version, "capabilities": {},
                                  "clientInfo": {"name": "hostile", "version": "0"}}}).encode()
    _, headers, _ = request(port, "POST", "/mcp", body, JSON)
    return headers.get("mcp-session-id")


def mutated(rng: random.Random, tools: list[str]) -> Any:
    """A JSON-RPC message, valid or broken in one or several places."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": rng.randint(1, 10**6), "method": rng.choice(METHODS)}
    params: dict[str, Any] = {}
    if message["method"] == "tools/call":
        params = {"name": rng.choice([*tools, "nope"]), "arguments": {k: rng.choice(ODD) for k in "abxyn"}}
    elif message["method"] == "resources/read":
        params = {"uri": rng.choice(["config://x", "file:///etc/passwd", "", "a" * 5000, "{x}"])}
    elif message["method"] == "notifications/cancelled":
        params = {"requestId": rng.choice(ODD)}
        del message["id"]
    message["params"] = params
    for _ in range(rng.randint(0, 3)):
        key = rng.choice(["jsonrpc", "id", "method", "params", "extra", "result", "error"])
        message[key] = rng.choice(ODD) if rng.random() < 0.8 else mutated(rng, tools)
    roll = rng.random()
    if roll < 0.1:
        return [message] * rng.randint(0, 150)
    if roll < 0.15:
        return rng.choice(ODD)
    return message


def fuzz(port: int, count: int, tools: list[str], seed: int) -> Tally:
    rng = random.Random(seed)
    tally = Tally()
    session = initialize(port)
    old_session = initialize(port, "2025-03-26")
    for i in range(count):
        route = rng.choice(ROUTES).replace("{tool}", rng.choice([*tools, "nope"]))
        headers = dict(JSON)
        if rng.random() < 0.5 and session:
            headers["Mcp-Session-Id"] = rng.choice([session, old_session or session, "made-up", ""])
        if rng.random() < 0.3:
            headers["MCP-Protocol-Version"] = rng.choice(["2024-11-05", "2025-03-26", "2025-11-25", "2026-07-28",
                                                          "x", ""])
        if rng.random() < 0.1:
            headers["Content-Type"] = rng.choice(["text/plain", "application/json; charset=latin-1", ""])
        if route == "/messages/":
            route += "?session_id=" + rng.choice(["made-up", session or "", ""])
        message = mutated(rng, tools)
        if rng.random() < 0.05:
            body = bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 300)))
        else:
            text = json.dumps(message, allow_nan=True)
            if rng.random() < 0.05:
                text = text[: rng.randint(0, len(text))]
            body = text.encode("utf-8", "surrogatepass")
        method = "POST"
        if route in ("/sse", "/openapi.json", "/.well-known/mcp.json") or rng.random() < 0.05:
            method = rng.choice(["GET", "DELETE", "PUT", "OPTIONS"]) if route != "/sse" else "POST"
            body = None if method in ("GET", "OPTIONS") else body
        status, _, _ = request(port, method, route, body, headers, timeout=10)
        tally.note(f"{method} {route} {body[:150] if body else b''!r}", status)
        if i % 500 == 0:
            session = initialize(port) or session
    return tally


def findings(port: int) -> list[tuple[str, str, bool]]:
    """The issue 13 findings, re-checked: (finding, what was seen, held)."""
    out: list[tuple[str, str, bool]] = []
    status, _, body = request(port, "GET", "/openapi.json", None, {"Host": f"evil.example:{port}"})
    out.append(("1 Host: evil.example", f"HTTP {status}", status == 421))
    status, _, _ = request(port, "POST", "/mcp", b"{}", {**JSON, "Origin": "http://localhost:8000.evil.example"})
    out.append(("1 Origin: localhost:8000.evil.example", f"HTTP {status}", status == 403))
    session = initialize(port)
    refused = 0
    for _ in range(400):
        refused += initialize(port) is None
    alive, _, _ = request(port, "POST", "/mcp", json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"}).encode(),
                          {**JSON, "Mcp-Session-Id": session or ""})
    out.append(("2 initialize flood (400 here)", f"first session still answers: HTTP {alive}", alive == 200))
    batch = json.dumps([{"jsonrpc": "2.0", "id": i, "method": "tools/list"} for i in range(60_000)]).encode()
    status, _, body = request(port, "POST", "/mcp", batch, {**JSON, "MCP-Protocol-Version": "2025-03-26"})
    out.append(("3 batch of 60,000", f"HTTP {status}, {len(body)} bytes", status == 400 and len(body) < 1000))
    old = initialize(port)
    for rid in ([1], True, {"x": 1}):
        request(port, "POST", "/mcp", json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                                  "params": {"requestId": rid}}).encode(),
                {**JSON, "Mcp-Session-Id": old or ""})
    out.append(("4 cancelled with requestId [1]/true", "see the server log count below", True))
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        try:
            sock.sendall(b"GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"x" * 70_000 + b"\r\n\r\n")
            head = sock.recv(100) or b"closed without an answer"
        except OSError as exc:
            head = f"{type(exc).__name__}".encode()
    out.append(("8 70 KB header", head.split(b"\r\n")[0].decode(), b" 431 " in head))
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        body = b"x" * (20 << 20)
        try:
            sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                         + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
            head = sock.recv(100)
        except OSError as exc:  # the connection reset under the client: the 413 is lost
            head = f"{type(exc).__name__}".encode()
    out.append(("8 too-large body sent before reading", head.split(b"\r\n")[0].decode(), b" 413 " in head))
    return out


def slow_sse(port: int) -> tuple[str, bool]:
    """A legacy SSE client that never reads while 40 replies of 4 MB are posted to its session."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    sock.sendall(b"GET /sse HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
    sock.settimeout(10)
    data = b""
    while not re.search(rb"session_id=([\w-]+)\n", data):
        data += sock.recv(4096)
    sid = re.search(rb"session_id=([\w-]+)\n", data).group(1).decode()  # type: ignore[union-attr]
    ended = False
    for i in range(40):
        # The error for an unknown resource names its URI: a 4 MB URI makes a 4 MB reply.
        message = {"jsonrpc": "2.0", "id": i, "method": "resources/read", "params": {"uri": "x" * (4 << 20)}}
        status, _, _ = request(port, "POST", f"/messages/?session_id={sid}", json.dumps(message).encode(), JSON)
        if status == 404:
            ended = True
            break
    sock.close()
    return f"session ended after {i + 1} POSTs" if ended else "session still open after 40 POSTs", ended


def run_schemathesis(executable: str, port: int, cases: int) -> str:
    """Run schemathesis on /openapi.json; its summary plus every failure's operation and answer.

    A REST tool call answers 500 ``{"error": ...}`` when the tool itself raises (documented in
    the OpenAPI document); schemathesis counts those as server errors all the same, so each
    failure is listed for a reader to tell the two apart.
    """
    out = subprocess.run([executable, "run", f"http://127.0.0.1:{port}/openapi.json", "--checks", "all",
                          "--max-examples", str(cases), "--no-color"],
                         capture_output=True, text=True, timeout=3600)
    lines = out.stdout.splitlines()
    failures = []
    for i, line in enumerate(lines):
        if line.startswith("- ST"):
            operation = next((x.strip("_ ") for x in reversed(lines[:i]) if x.startswith("___")), "?")
            answer = next((x.strip() for x in lines[i + 1:i + 6] if x.strip().startswith("`")), "")
            failures.append(f"{operation}: {line[2:]} {answer}")
    summary = [line for line in lines[lines.index(next((x for x in lines if "SUMMARY" in x), lines[-1])):]
               if line.strip()]
    return "\n".join([*summary, "", "Failures:", *failures])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--example", default="simple", choices=["simple", "data_analysis", "simulator"])
    parser.add_argument("--fuzz", type=int, default=3000, help="fuzzed messages (default 3000)")
    parser.add_argument("--cases", type=int, default=200, help="schemathesis examples per operation")
    parser.add_argument("--schemathesis", default=None, help="schemathesis executable (scratch venv)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--out", default=None, help="also write the markdown report here")
    parser.add_argument("--tree", default=None,
                        help="serve another checkout's package and examples (e.g. an older commit, for a before/after)")
    args = parser.parse_args()

    port = free_port()
    tree = Path(args.tree).resolve() if args.tree else ROOT
    env = {**os.environ, "MCP_TOKEN": "", "PYTHONUNBUFFERED": "1"}
    if args.tree:
        env["PYTHONPATH"] = str(tree)  # ahead of the project's own editable install
    server = subprocess.Popen([PYTHON, str(tree / "examples" / args.example / "start_mcp.py"), "--port", str(port)],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while request(port, "GET", "/openapi.json", None, {})[0] != 200:
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit("the server did not start")
            time.sleep(0.1)
        tools = list(json.loads(request(port, "GET", "/openapi.json", None, {})[2])["paths"])
        tools = [p.rsplit("/", 1)[1] for p in tools if p.startswith("/tools/")]
        before = proc_figures(server.pid)
        lines = [f"# Hostile trial: examples/{args.example} of {tree} "
                 f"({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})",
                 "", f"Server pid {server.pid}, port {port}, tools: {', '.join(tools)}", ""]
        if args.schemathesis:
            started = time.monotonic()
            summary = run_schemathesis(args.schemathesis, port, args.cases)
            lines += [f"## schemathesis ({time.monotonic() - started:.0f} s)", "", "```", summary, "```", ""]
        started = time.monotonic()
        tally = fuzz(port, args.fuzz, tools, args.seed)
        lines += [f"## Fuzz: {tally.sent} messages in {time.monotonic() - started:.0f} s", "",
                  f"- statuses: {dict(sorted(tally.statuses.items()))}",
                  f"- server errors (5xx): {tally.server_errors}; dropped without an answer: {tally.dropped}"]
        lines += [f"  - {e}" for e in tally.examples]
        lines += ["", "## Findings of issue 13, re-checked", "", "| finding | seen | held |", "|---|---|---|"]
        checks = findings(port)
        seen, ended = slow_sse(port)
        checks.append(("6 legacy SSE client that never reads", seen, ended))
        lines += [f"| {name} | {what} | {'yes' if ok else '**no**'} |" for name, what, ok in checks]
        after = proc_figures(server.pid)
        lines += ["", "## Process figures", "", "| | before | after |", "|---|---|---|"]
        lines += [f"| {key} | {before[key]} | {after[key]} |" for key in before]
        started = time.monotonic()
        server.send_signal(signal.SIGTERM)
        code = server.wait(60)
        _, err = server.communicate(timeout=10)
        tracebacks = err.count("Traceback")
        lines += ["", f"SIGTERM: exited with {code} after {time.monotonic() - started:.1f} s; "
                      f"tracebacks in the server log: {tracebacks}"]
        report = "\n".join(lines) + "\n"
        print(report)
        if args.out:
            Path(args.out).write_text(report)
        held = all(ok for _, _, ok in checks) and tally.server_errors == 0 and tally.dropped == 0
        return 0 if held and tracebacks == 0 else 1
    finally:
        if server.poll() is None:
            server.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                server.wait(10)


if __name__ == "__main__":
    sys.exit(main())
