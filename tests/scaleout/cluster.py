"""Several server processes behind a real nginx, for the scale-out tests.

:class:`Cluster` starts N ``nanohubmcp run app.py --port P --state-url URL`` processes (each
logs its requests with its process id) and nginx configured with the round-robin block of
``docs/how-to/scale-out.md`` as written there, its ports replaced by the test's. nginx sends
each request to the next process (no stickiness, no upstream keep-alive), so consecutive
requests of one client land on different processes. Each process has a state directory of its own, as on
separate machines: sessions, streams and jobs reach the others through Redis alone.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import wire
from redis_server import RedisServer, find_redis, free_port, listening, self_signed
from support import installed

from nanohubmcp.state.base import session_key

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "how-to" / "scale-out.md"
APP = Path(__file__).with_name("app.py")
START_TIMEOUT = 30.0
DOC_PORTS = ("8000", "8001", "8002", "8003")


def doc_nginx_block() -> str:
    """The nginx configuration block of the scale-out page, as written."""
    text = DOC.read_text(encoding="utf-8")
    found = re.search(r"```nginx\n(.*?)```", text, re.S)
    assert found, f"{DOC} has no ```nginx block"
    return found.group(1)


def nginx_config(workdir: Path, listen: int, upstreams: list[int], *, tls: bool = False) -> str:
    """A runnable nginx.conf around the documented block: its ports replaced, files kept in ``workdir``;
    with ``tls`` nginx terminates TLS on its port (a self-signed certificate for 127.0.0.1)."""
    block = doc_nginx_block()
    mapping = dict(zip(DOC_PORTS, [str(listen), *map(str, upstreams)], strict=False))
    for unused in DOC_PORTS[len(mapping):]:  # fewer servers than the page's three: their lines go
        block = re.sub(rf"\n *server 127\.0\.0\.1:{unused}\b[^\n]*", "", block)
    block = re.sub(r"\b(800[0-3])\b", lambda m: mapping[m.group(1)], block)
    block = block.replace("listen " + str(listen), f"listen 127.0.0.1:{listen}")
    if tls:
        cert, key = self_signed(workdir)
        block = block.replace(
            f"listen 127.0.0.1:{listen};",
            f"listen 127.0.0.1:{listen} ssl;\n    ssl_certificate {cert};\n    ssl_certificate_key {key};",
        )
    temp = ""
    for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (workdir / name).mkdir(exist_ok=True)
        temp += f"    {name}_temp_path {workdir / name};\n"
    return (
        f"daemon off;\nmaster_process off;\npid {workdir}/nginx.pid;\nerror_log {workdir}/error.log info;\n"
        f"events {{ worker_connections 512; }}\nhttp {{\n    access_log {workdir}/access.log;\n{temp}{block}}}\n"
    )


def processes_with(field: int, value: int) -> set[int]:
    """The processes whose ``/proc/PID/stat`` field ``field`` (counted after the name: 1 is the parent's
    id, 2 the process group) is ``value``; zombies (ended, not yet reaped) too."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[field]) == value:
                found.add(int(entry.name))
    return found


def group_members(group: int) -> set[int]:
    """The live processes of process group ``group`` (a server started in a session of its own): not the
    zombies (ended, not yet reaped)."""
    alive = set()
    for pid in processes_with(2, group):
        with contextlib.suppress(OSError):
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                alive.add(pid)
    return alive


def took(pid: int, signum: int) -> bool:
    """Whether process ``pid`` no longer has ``signum`` pending (it took, or discarded, the signal sent to it; or
    it is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except (FileNotFoundError, ProcessLookupError):  # (gone before the open, or between it and the read)
        return True
    for line in status.splitlines():
        if line.startswith("ShdPnd:"):
            return not int(line.split()[1], 16) & (1 << (signum - 1))
    return False


def calls_running_where(
    url: str, session: str, name: str, arguments: dict[str, Any], rid: int = 2
) -> tuple[wire.Events, str]:
    """Start a call of the tool ``name`` of session ``session`` on a connection of its own (which worker of a
    ``--workers`` server gets it is the kernel's choice) and wait for its first progress message, which the tool
    sends naming its process: the call (still running: close it) and that message."""
    call = wire.Events("POST", url, wire.headers(session), {
        "jsonrpc": "2.0", "id": rid, "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": {"progressToken": f"p{rid}"}},
    })
    _, progress = call.next()
    assert progress, "the call ended before its progress message"
    assert progress.get("method") == "notifications/progress", progress
    return call, str(progress["params"]["message"])


def calls_on_every_worker(
    url: str, session: str, name: str, arguments: dict[str, Any], workers: int = 2
) -> tuple[list[wire.Events], dict[str, int]]:
    """Start calls of the tool ``name`` (its first progress message names its process) until each of the
    ``workers`` processes serving ``url`` runs one (at most 40 calls): the calls (close them) and how many each
    process runs, by process id."""
    calls: list[wire.Events] = []
    where: dict[str, int] = {}
    while len(where) < workers and len(calls) < 40:
        call, pid = calls_running_where(url, session, name, arguments, rid=len(calls) + 2)
        calls.append(call)
        where[pid] = where.get(pid, 0) + 1
    assert len(where) == workers, where
    return calls, where


def listeners(port: int) -> int:
    """Listening TCP sockets on ``port`` (IPv4), from /proc/net/tcp."""
    rows = Path("/proc/net/tcp").read_text().splitlines()[1:]
    return sum(1 for row in rows if row.split()[1].endswith(f":{port:04X}") and row.split()[3] == "0A")


class Server:
    """One ``nanohubmcp run`` process (of :data:`APP`, or of ``app``), in a session of its own."""

    def __init__(
        self,
        workdir: Path,
        port: int,
        state_url: str,
        *,
        workers: int = 1,
        env: dict[str, str],
        access_log: bool = True,
        extra_args: Sequence[str] = (),
        app: Path = APP,
    ) -> None:
        self.port = port
        self.log = workdir / f"server-{port}.log"
        args = [
            sys.executable,
            "-m",
            "nanohubmcp",
            "run",
            str(app),
            "--port",
            str(port),
            "--state-url",
            state_url,
        ]
        args += extra_args
        if access_log:
            args.append("--access-log")
        if workers > 1:
            args += ["--workers", str(workers)]
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                args, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
            )

    @property
    def url(self) -> str:
        """This process's own MCP endpoint (bypassing nginx)."""
        return f"http://127.0.0.1:{self.port}/mcp"

    def kill(self) -> None:
        """SIGKILL: no chance to clean up (the process dies mid-work)."""
        self.proc.kill()
        self.proc.wait(10)

    def wait_listening(self) -> None:
        """Until this server answers HTTP on its port (``/healthz``, any status): a port that only accepts a TCP
        connection may be another process's, or this one's before it serves (ci77: a session opened right after a
        bare connect check was closed unanswered, once, under load)."""
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline and not self.answers():
            if self.proc.poll() is not None:
                raise RuntimeError(f"server on {self.port} exited:\n{self.text()}")
            time.sleep(0.1)
        if not self.answers():
            raise RuntimeError(f"server on {self.port} did not answer HTTP:\n{self.report()}")

    def answers(self) -> bool:
        """Whether ``GET /healthz`` on this server's port gets an HTTP answer."""
        if not listening(self.port):
            return False
        try:
            httpx.get(f"http://127.0.0.1:{self.port}/healthz", timeout=2)
        except httpx.HTTPError:
            return False
        return True

    def text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def report(self, lines: int = 40) -> str:
        """For a failure message: whether the process runs (else its exit code) and its log's last lines."""
        code = self.proc.poll()
        alive = "still running" if code is None else f"exited with code {code}"
        tail = "\n".join(self.text().splitlines()[-lines:])
        return f"the process on port {self.port} (pid {self.proc.pid}) {alive}; its log ends:\n{tail}"

    def pids_serving(self) -> set[int]:
        """Process ids named by this server's access log lines."""
        return {int(pid) for pid in re.findall(r"\[worker pid (\d+)\] nanohubmcp\.access", self.text())}

    def stop(self) -> None:
        self.terminate()
        self.wait_stopped()

    def terminate(self) -> None:
        """SIGTERM to its process group: it begins to stop (:meth:`wait_stopped` waits for it)."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)

    def wait_stopped(self) -> None:
        """Wait up to 10 s for it to end, then SIGKILL its process group."""
        if self.proc.poll() is None:
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)


class Cluster:
    """N servers sharing ``state_url`` behind nginx (see the module docstring)."""

    def __init__(
        self,
        nginx: str,
        workdir: Path,
        state_url: str,
        count: int = 3,
        *,
        each: Sequence[tuple[Sequence[str], dict[str, str]]] = (),
        tls: bool = False,
        **extra_env: str,
    ) -> None:
        """``each``: per server, extra command-line arguments and environment variables (``count`` is then
        its length); ``tls``: nginx terminates TLS (:attr:`url` stays http: use ``https://`` on :attr:`port`)."""
        self.workdir = workdir
        self.state_url = state_url
        env = {**os.environ, "MCP_TOKEN": "", **extra_env}
        env.pop("NANOHUBMCP_STATE_URL", None)
        own = list(each) or [((), {})] * count
        # A state directory each, as on separate machines: what they share is in Redis only.
        self.servers = [
            Server(
                workdir,
                free_port(),
                state_url,
                env={**env, **more_env, "NANOHUBMCP_STATE_DIR": str(workdir / f"state-{i}")},
                extra_args=more_args,
            )
            for i, (more_args, more_env) in enumerate(own)
        ]
        for server in self.servers:
            server.wait_listening()
        self.port = free_port()
        conf = workdir / "nginx.conf"
        conf.write_text(nginx_config(workdir, self.port, [s.port for s in self.servers], tls=tls), encoding="utf-8")
        self.nginx = subprocess.Popen(
            [nginx, "-p", str(workdir), "-c", str(conf), "-e", str(workdir / "error.log")],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not listening(self.port):
            time.sleep(0.05)
        assert listening(self.port), (workdir / "error.log").read_text(errors="replace")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def pids(self) -> set[int]:
        return set().union(*(s.pids_serving() for s in self.servers))

    def logs(self) -> str:
        return "\n".join(s.text() for s in self.servers)

    def close(self) -> None:
        if self.nginx.poll() is None:
            self.nginx.terminate()
            self.nginx.wait(10)
        for server in self.servers:  # all stopping at once, not one after another
            server.terminate()
        for server in self.servers:
            server.wait_stopped()


@contextlib.contextmanager
def on_own_redis(workdir: Path, count: int = 3, **extra_env: str) -> Iterator[Cluster]:
    """A :class:`Cluster` of ``count`` servers (``extra_env`` in their environment) on a redis-server
    of its own, both started here and stopped on leaving (for a whole module of tests)."""
    from nginx_weber import find_nginx  # (tests/proxy: on the path once conftest ran)

    store = RedisServer(installed(find_redis(), "redis-server"), workdir).start()
    try:
        nodes = Cluster(installed(find_nginx(), "nginx"), workdir, store.url, count, **extra_env)
        try:
            yield nodes
        finally:
            nodes.close()
    finally:
        store.stop()


def heartbeat_runs_out(state_url: str, job_id: str, name: str = "scaleout-test") -> None:
    """After a ``kill -9`` of the process running the job ``job_id`` (of the server ``name``): its heartbeat in
    Redis (``runner:<process>``, renewed every few seconds) is checked to end within its
    :data:`~nanohubmcp.state.redis_runners.RUNNER_TTL`, then made to end now (0.2 s), as Redis ends it once that TTL
    has run out: the test waits for what the other processes do once it is gone, not for the TTL."""
    import redis

    from nanohubmcp.state.redis_runners import RUNNER_TTL

    store = redis.Redis.from_url(state_url, decode_responses=True)
    try:
        stored = store.hget(f"nanohubmcp:{name}:job:{job_id}", "runner")  # (each field JSON text)
        runner = json.loads(stored) if stored else None
        assert runner, f"job {job_id} names no runner"
        key = f"nanohubmcp:{name}:runner:{runner.partition('.')[0]}"
        assert 0 < store.pttl(key) <= RUNNER_TTL * 1000, (key, store.pttl(key))
        store.pexpire(key, 200)
    finally:
        store.close()


def producer_heartbeat_runs_out(state_url: str, session: str, event_id: str, name: str = "scaleout-test") -> None:
    """After a ``kill -9`` of the process producing the stream of ``event_id`` (an event of session ``session``, whose
    log's entries name that process): its heartbeat in Redis (``proc:<process>``, refreshed every
    :data:`~nanohubmcp.state.redis_channels.HEARTBEAT_SECONDS`) is checked to end within its
    :data:`~nanohubmcp.state.redis_channels.HEARTBEAT_TTL`, then made to end now (0.2 s), as Redis ends it once that
    TTL has run out: the test waits for what the other processes do once it is gone, not for the TTL."""
    import redis

    from nanohubmcp.state.redis_channels import HEARTBEAT_TTL

    store = redis.Redis.from_url(state_url, decode_responses=True)
    try:
        entries = store.xrange(f"nanohubmcp:{name}:ev:{session_key(session)}:{event_id.split('.')[0]}")
        producers = {fields["o"] for _, fields in entries if "o" in fields}
        assert len(producers) == 1, (event_id, entries)
        key = f"nanohubmcp:{name}:proc:{producers.pop()}"
        assert 0 < store.pttl(key) <= HEARTBEAT_TTL * 1000, (key, store.pttl(key))
        store.pexpire(key, 200)
    finally:
        store.close()
