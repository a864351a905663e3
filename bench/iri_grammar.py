#!/usr/bin/env python3
"""What jsonschema's RFC 3987 grammar costs where our users import jsonschema (issue 28), two trees compared.

    .venv/bin/python bench/iri_grammar.py --before /tmp/main-before [--runs 5] [--instructions]

Where ``rfc3987-syntax`` is installed (jsonschema's ``format-nongpl`` extra, pulled in by jupyter-events: every
Jupyter environment, this repository's ``.venv`` too; ``bench/.venv-peers`` lacks it), ``import jsonschema`` builds
its Lark grammar (~0.9 s). Each scenario is a fresh interpreter with ``PYTHONPATH`` set to a tree, timed from the
spawn to its exit (wall, median of ``--runs``, trees interleaved) and, with ``--instructions``, counted once by
``valgrind --tool=exp-bbv`` (all threads, ``PYTHONHASHSEED=0``). ``served`` is a start_mcp-like script with a
hand-written input schema, timed from the spawn to its first ``initialize`` answer and to its first
``tools/call`` answer (wall only). ``servers/ours.py`` (bench/startup.py's cold start) registers generated
schemas only and never imports jsonschema: its figure does not include this cost in any tree.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mcpbench import env, mcp
from mcpbench.http import Connection

HOST = "127.0.0.1"
SIM2L = env.REPO / "examples" / "sim2l" / "cooling"
NOTEBOOK = env.REPO / "notebooks" / "calculator.ipynb"

TOOL = """
from nanohubmcp import MCPServer
server = MCPServer("iri")

@server.tool(input_schema={"type": "object", "properties": {"home": {"type": "string", "format": "uri"}},
                           "required": ["home"]})
def visit(home: str) -> str:
    "Visit a page."
    return home
"""

PLAIN = "import jsonschema (alone)"
SCENARIOS = {
    PLAIN: "import jsonschema",
    "register a hand-written schema": TOOL,
    "read a Sim2L notebook": f"from nanohubmcp.sources.sim2l.notebook import read_sim2l\nread_sim2l({str(SIM2L)!r})",
    "nanohubmcp export": "import sys\nfrom nanohubmcp.cli import main\n"
                         f"sys.exit(main(['export', {str(NOTEBOOK)!r}, '-o', '-']))",
}


def wall(python: str, tree: str, code: str) -> float:
    t0 = time.perf_counter()
    subprocess.run([python, "-c", code], env={**os.environ, "PYTHONPATH": tree}, cwd=tree, check=True,
                   capture_output=True, timeout=300)
    return (time.perf_counter() - t0) * 1000


def instructions(python: str, tree: str, code: str) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "valgrind.log"
        subprocess.run(["valgrind", "--tool=exp-bbv", "--instr-count-only=yes", f"--bb-out-file={tmp}/bbv.out",
                        f"--log-file={log}", python, "-c", code],
                       env={**os.environ, "PYTHONPATH": tree, "PYTHONHASHSEED": "0"}, cwd=tree, check=True,
                       capture_output=True, timeout=1800)
        return sum(int(m) for m in re.findall(r"Total instructions:\s+(\d+)", log.read_text(errors="replace")))


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


async def served(python: str, tree: str) -> tuple[float, float]:
    """(ms to the first initialize answer, ms to the first tools/call answer) from the spawn."""
    port = free_port()
    code = TOOL + f"server.run(host={HOST!r}, port={port}, quiet=True)"
    t0 = time.perf_counter()
    proc = subprocess.Popen([python, "-c", code], env={**os.environ, "PYTHONPATH": tree}, cwd=tree,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        ready = await mcp.wait_ready(HOST, port, 60)
        assert ready is not None, "the served script did not answer initialize"
        conn = Connection(HOST, port)
        try:
            reply = await conn.request("POST", "/mcp", mcp.headers(), mcp.initialize_body(), 10)
            session = reply.headers.get("mcp-session-id")
            body = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                    "params": {"name": "visit", "arguments": {"home": "http://example.org/"}}}
            reply = await conn.request("POST", "/mcp", mcp.headers(session=session), json.dumps(body).encode(), 60)
            assert reply.status == 200, reply.status
            called = time.perf_counter()
        finally:
            await conn.close()
        return (ready - t0) * 1000, (called - t0) * 1000
    finally:
        proc.terminate()
        proc.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="a checkout to compare with (a git archive of main)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--instructions", action="store_true")
    a = parser.parse_args()
    python = env.our_python()
    trees = {"before": str(Path(a.before).resolve()), "after": str(env.REPO)}
    for tree in trees.values():
        subprocess.run([python, "-m", "compileall", "-q", f"{tree}/nanohubmcp"], check=False, capture_output=True)
    rows: dict[str, dict[str, list[float]]] = {}
    for _ in range(a.runs):
        for name, code in SCENARIOS.items():
            for label, tree in trees.items():
                rows.setdefault(name, {}).setdefault(label, []).append(wall(python, tree, code))
        for label, tree in trees.items():
            first, call = asyncio.run(served(python, tree))
            rows.setdefault("served: spawn -> first initialize", {}).setdefault(label, []).append(first)
            rows.setdefault("served: spawn -> first tools/call", {}).setdefault(label, []).append(call)
    print(f"| scenario (wall ms, median of {a.runs}) | before | after |")
    print("|---|---:|---:|")
    for name, by in rows.items():
        print(f"| {name} | {statistics.median(by['before']):.0f} | {statistics.median(by['after']):.0f} |")
    if a.instructions:
        print("\n| scenario (instructions, exp-bbv) | before | after | saved |")
        print("|---|---:|---:|---:|")
        for name, code in SCENARIOS.items():
            if name == PLAIN:  # no nanohubmcp in it: the trees do not differ
                print(f"| {name} | {instructions(python, trees['after'], code):,} | | |", flush=True)
                continue
            before, after = (instructions(python, trees[k], code) for k in ("before", "after"))
            print(f"| {name} | {before:,} | {after:,} | {before - after:,} |", flush=True)


if __name__ == "__main__":
    main()
