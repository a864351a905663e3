"""The first value with other units a Rappture job tool checks in a process (``"800C"`` for a tool in
K) needs pint's unit registry, about a second to import and make. The check ran on the event loop, so
every other request of that process waited for it (b1f5e66's known cost). Now the registry is made on a
worker thread while the loop serves others, and the call is answered once it is made. Threads that
convert at once wait for one registry, made once.

Over a real server in a fresh process (the test process has pint loaded long ago): a trivial tool,
polled while the unit check runs, says what the server process was doing when it answered: whether
pint was being loaded (``"pint" in sys.modules``) and whether the unit call had been refused yet (a
``call_finished`` event). Answered with pint loading and the call not yet refused means the loop
served it while the first check waited for pint; with the check on the loop that state is never
seen (the import, the conversion and the refusal are one step of the loop)."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from support import ROOT

pytest.importorskip("pint")

FERMI = Path(__file__).parent / "tools" / "fermi"
WAIT = 90.0
"""Bound on each wait (a cold import of pint on a loaded 2-core machine takes a few seconds)."""

SERVER = """
import sys
from nanohubmcp import MCPServer

server = MCPServer("rappture-async", job_store="memory")
server.add_rappture_tool(sys.argv[1], async_=True)
refused = []
server.events.subscribe(
    lambda event, data: refused.append(data["error"]) if data["name"] == "fermi" and not data["ok"] else None,
    ["call_finished"],
)


@server.tool()
def state() -> dict:
    '''What this process is doing as it answers.'''
    return {"pint": "pint" in sys.modules, "refused": len(refused)}


assert "pint" not in sys.modules, "registering the tool loaded pint: nothing left to measure"
server.run(host="127.0.0.1", port=0)
"""

STATELESS = "2026-07-28"


def rest_call(url: str) -> tuple[int, str]:
    reply = httpx.post(f"{url}tools/fermi", json={"temperature": "800C"}, timeout=WAIT)
    return reply.status_code, reply.json()["error"]


def stateless_call(url: str) -> tuple[int, str]:
    params = {
        "name": "fermi",
        "arguments": {"temperature": "800C"},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": STATELESS,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "tests", "version": "1"},
        },
    }
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": STATELESS,
        "Mcp-Method": "tools/call",
        "Mcp-Name": "fermi",
    }
    reply = httpx.post(
        f"{url}mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params},
        headers=headers,
        timeout=WAIT,
    )
    result = reply.json()["result"]
    assert result["isError"] is True, result
    return reply.status_code, result["content"][0]["text"]


def session_call(url: str) -> tuple[int, str]:
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"}
    reply = httpx.post(
        f"{url}mcp",
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "fermi", "arguments": {"temperature": "800C"}},
        },
        headers=headers,
        timeout=WAIT,
    )
    return reply.status_code, reply.json()["error"]["message"]


@contextmanager
def served() -> Iterator[str]:
    """The server script in a fresh process; yields its base URL."""
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(FERMI)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        for line in proc.stdout or ():
            lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    try:
        said = ""
        deadline = time.monotonic() + WAIT
        while "http://127.0.0.1:" not in said:
            try:
                said += lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"the server did not start: {said}") from None
        port = int(said.split("http://127.0.0.1:", 1)[1].split("/", 1)[0].split()[0])
        yield f"http://127.0.0.1:{port}/"
    finally:
        proc.kill()
        proc.wait(10)


@pytest.mark.parametrize("call", [rest_call, stateless_call, session_call], ids=["rest", "stateless", "rpc"])
def test_a_trivial_tool_is_answered_while_the_first_unit_check_loads_pint(
    call: Callable[[str], tuple[int, str]],
) -> None:
    with served() as url:
        answered: list[tuple[int, str]] = []
        unit_call = threading.Thread(target=lambda: answered.append(call(url)), daemon=True)
        unit_call.start()
        seen: list[dict[str, Any]] = []
        deadline = time.monotonic() + WAIT
        # Polled until the unit call is refused (the state it was waiting for is then past).
        while not (seen and seen[-1]["refused"]) and time.monotonic() < deadline:
            reply = httpx.post(f"{url}tools/state", json={}, timeout=WAIT)
            assert reply.status_code == 200, reply.text
            seen.append(reply.json())
        unit_call.join(WAIT)
        assert answered, "the unit call was not answered"
        status, text = answered[0]
        assert "temperature (Temperature): '800C' is 1073.15K, above the maximum 1000K" in text, (status, text)
        assert status == (400 if call is rest_call else 200)
        during = [s for s in seen if s["pint"] and not s["refused"]]
        assert during, f"no request was answered while the first unit check loaded pint: {json.dumps(seen[-5:])}"


CONVERTERS = """
import sys, threading
import pint
from nanohubmcp.sources.rappture.compat.Rappture import Units

made = []
build = pint.UnitRegistry
pint.UnitRegistry = lambda *args, **kwargs: (made.append(1), build(*args, **kwargs))[1]
start = threading.Barrier(4)
values = []

def convert():
    start.wait(60)
    values.append(Units.number_in("25C", "K"))

threads = [threading.Thread(target=convert) for _ in range(4)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join(60)
print(len(made), values)
"""


def test_threads_converting_at_once_wait_for_one_registry() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CONVERTERS], cwd=ROOT, capture_output=True, text=True, timeout=WAIT, check=True
    )
    assert done.stdout.split() == ["1", "[298.15,", "298.15,", "298.15,", "298.15]"], done.stdout + done.stderr
