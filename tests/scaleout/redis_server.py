"""A real ``redis-server`` on a free loopback port, in a temporary directory, for tests.

No persistence (``--save ''``, ``--appendonly no``): a restart forgets everything, as a Redis
restarted without persistence does. :meth:`RedisServer.stop` and :meth:`RedisServer.start`
take it away and bring it back on the same port (the outage tests); a password may be set
(``requirepass``).
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time
from pathlib import Path

START_TIMEOUT = 10.0


def find_redis() -> str | None:
    """The redis-server executable (on PATH or Debian's /usr/bin), or None."""
    return shutil.which("redis-server") or ("/usr/bin/redis-server" if Path("/usr/bin/redis-server").exists() else None)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def listening(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
        return True
    return False


class RedisServer:
    """One redis-server process on 127.0.0.1 (see the module docstring)."""

    def __init__(self, executable: str, workdir: Path, *, password: str | None = None) -> None:
        self.executable = executable
        self.workdir = workdir
        self.password = password
        self.port = free_port()
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        auth = f":{self.password}@" if self.password else ""
        return f"redis://{auth}127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        args = [
            self.executable,
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(self.workdir),
            "--save",
            "",
            "--appendonly",
            "no",
            "--daemonize",
            "no",
            "--protected-mode",
            "no",
        ]
        if self.password:
            args += ["--requirepass", self.password]
        log = (self.workdir / "redis.log").open("ab")
        self._proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline and self._proc.poll() is None and not listening(self.port):
            time.sleep(0.05)
        if not listening(self.port):
            raise RuntimeError(f"redis-server did not start:\n{self.logs()}")
        return self

    def stop(self) -> None:
        """Stop it (SIGKILL: no chance to save anything)."""
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(10)

    def logs(self) -> str:
        path = self.workdir / "redis.log"
        return path.read_text(errors="replace") if path.exists() else ""
