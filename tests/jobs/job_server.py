"""A job server run as a real subprocess (so it can be killed with SIGKILL and started again).

``ServerProcess(state_dir, executor=...)`` starts ``python job_server.py STATE_DIR EXECUTOR
[DASK_ADDRESS]`` on a free loopback port, reads the port from the startup banner and offers
small clients for every route that reads a job: the official ``mcp`` client's
``get_job_result``, REST polling, 2025-11-25 ``tasks/*`` and the 2026 tasks extension.
"""

from __future__ import annotations

import http.client
import itertools
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
BANNER = re.compile(r"listening on [^\s:]+:(?P<port>\d+)")
TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
TOKENS = {"token-of-alice": "alice", "token-of-bob": "bob"}
"""Bearer tokens of the server started with ``auth=True`` (token → principal subject)."""


def wait_here(path: str) -> dict:
    """Run until ``path`` exists; module level, so it can run on the ``processes`` executor."""
    while not os.path.exists(path):
        time.sleep(0.05)
    return {"found": path, "pid": os.getpid()}


def run_a_program(marker: str) -> dict:
    """Start a program that ignores SIGTERM (a simulator stand-in), write its pid to ``marker``,
    then wait for ever (module level, for the ``processes`` executor)."""
    program = subprocess.Popen(["/bin/sh", "-c", "trap '' TERM; while :; do sleep 1; done"])
    Path(marker).write_text(str(program.pid))
    return wait_here(marker + ".never")


def main() -> None:
    from nanohubmcp import Context, MCPServer, StaticTokenVerifier

    state_dir, executor = sys.argv[1], sys.argv[2]
    dask_address = sys.argv[3] if len(sys.argv) > 3 else None
    auth = StaticTokenVerifier(TOKENS) if os.environ.get("JOB_SERVER_AUTH") else None
    server = MCPServer("restartable", state_dir=state_dir, job_executor=executor, dask_address=dask_address,
                       auth=auth)

    @server.async_tool()
    def square(n: int) -> dict:
        """n squared, with the pid of the process that computed it."""
        return {"n": n, "square": n * n, "pid": os.getpid()}

    @server.async_tool()
    def wait_for_file(path: str, ctx: Context) -> dict:
        """Run until ``path`` exists (or the job is cancelled); reports progress meanwhile."""
        step = 0
        while not os.path.exists(path):
            if ctx.is_cancelled():
                return {"stopped": True, "pid": os.getpid()}
            step += 1
            ctx.report_progress(step, None, f"waiting, step {step}")
            time.sleep(0.05)
        return {"found": path, "pid": os.getpid()}

    @server.async_tool()
    def until_cancelled(folder: str, ctx: Context) -> str:
        """Write ``folder/started``, then run until the job is cancelled (then write ``folder/cancelled``)."""
        Path(folder, "started").touch()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if ctx.is_cancelled():
                Path(folder, "cancelled").touch()
                return "cancelled"
            time.sleep(0.02)
        return "ran to its end"

    server.async_tool(executor="processes")(wait_here)
    server.async_tool(executor="processes")(run_a_program)
    server.run(host="127.0.0.1", port=0)


_IDS = itertools.count(1)
"""Request ids, one per request of every ``Routes`` (threads share it: ``next`` of a count is atomic in CPython)."""


class Routes:
    """Small clients for every route of a server on 127.0.0.1:``port``."""

    def __init__(self, port: int, token: str | None = None) -> None:
        self.port = port
        self.url = f"http://127.0.0.1:{port}/"
        self.token = token

    def as_caller(self, token: str | None) -> Routes:
        """The same server, called with ``Authorization: Bearer <token>``."""
        return Routes(self.port, token)

    def http(self, path: str, body: Any, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], Any]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            sent = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
            if self.token:
                sent["Authorization"] = f"Bearer {self.token}"
            conn.request("POST", path, body=json.dumps(body).encode(), headers={**sent, **(headers or {})})
            response = conn.getresponse()
            raw = response.read().decode()
            return response.status, dict(response.headers), _decode(raw)
        finally:
            conn.close()

    def rest_poll(self, job_id: str) -> tuple[int, Any]:
        status, _, body = self.http("/tools/get_job_result", {"job_id": job_id})
        return status, body

    def rest_start(self, tool: str, arguments: dict[str, Any]) -> tuple[int, Any]:
        status, _, body = self.http(f"/tools/{tool}", arguments)
        return status, body

    def session(self, version: str = "2025-11-25") -> str:
        """Open a 2025-11-25 session; returns its id."""
        params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "jobs-tests", "version": "0"}}
        _, headers, _ = self.http("/mcp", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})
        session = headers.get("Mcp-Session-Id") or headers.get("mcp-session-id")
        assert session
        self.http("/mcp", {"jsonrpc": "2.0", "method": "notifications/initialized"},
                  {"Mcp-Session-Id": session, "MCP-Protocol-Version": version})
        return session

    def rpc(self, session: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """One request in a 2025-11-25 session, with an id of its own (a session's requests in progress may not
        share one: -32600); the response message."""
        message = {"jsonrpc": "2.0", "id": next(_IDS), "method": method, "params": params}
        _, _, body = self.http("/mcp", message, {"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"})
        return body

    def modern(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """One 2026-07-28 request declaring the tasks extension; the response message."""
        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS_EXTENSION: {}}},
                "io.modelcontextprotocol/clientInfo": {"name": "jobs-tests", "version": "0"}}
        message = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": meta}}
        headers = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
        named = params.get("name") or params.get("taskId") or params.get("uri")
        if named:
            headers["Mcp-Name"] = named
        _, _, body = self.http("/mcp", message, headers)
        return body


class ServerProcess(Routes):
    """The job server in a subprocess."""

    def __init__(self, state_dir: Path, executor: str = "threads", dask_address: str | None = None,
                 *, auth: bool = False) -> None:
        self.log = state_dir.parent / f"server-{time.monotonic_ns()}.log"
        command = [sys.executable, "-u", str(HERE / "job_server.py"), str(state_dir), executor]
        if dask_address:
            command.append(dask_address)
        with self.log.open("wb") as sink:
            env = {**os.environ, **({"JOB_SERVER_AUTH": "1"} if auth else {})}
            self.proc = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         env=env)
        deadline = time.monotonic() + 60
        while True:
            found = BANNER.search(self.log.read_text(errors="replace"))
            if found:
                super().__init__(int(found["port"]))
                break
            assert self.proc.poll() is None, f"the server exited:\n{self.log.read_text()}"
            assert time.monotonic() < deadline, f"no banner:\n{self.log.read_text()}"
            time.sleep(0.05)

    def kill(self) -> None:
        """SIGKILL: no cleanup of any kind runs."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


def wait_until(check: Any, what: str, timeout: float = 60.0) -> Any:
    """:func:`support.wait_until`, for the tests of jobs and hpc that import it from here (imported when called:
    this module is also the server script, run where ``support`` is not on the path)."""
    from support import wait_until as wait

    return wait(check, what, timeout)


def children(pid: int) -> set[int]:
    """Live processes whose parent is ``pid`` (from /proc; :func:`support.process_fields`, imported when called as
    :func:`wait_until` is)."""
    from support import process_fields

    found = set()
    for name in os.listdir("/proc"):
        if name.isdigit():
            fields = process_fields(int(name))
            if fields is not None and int(fields[1]) == pid and fields[0] not in ("Z", "X"):
                found.add(int(name))
    return found


def _decode(raw: str) -> Any:
    if raw.startswith("{") or raw.startswith("["):
        return json.loads(raw)
    found = [json.loads(line[5:]) for line in raw.splitlines() if line.startswith("data:") and line[5:].strip()]
    return found[-1] if found else raw


if __name__ == "__main__":
    main()
