"""A real ``redis-server`` on a free loopback port, in a temporary directory, for tests.

No persistence (``--save ''``, ``--appendonly no``): a restart forgets everything, as a Redis
restarted without persistence does; ``persistent=True``: an append-only file synced at every
write (``--appendfsync always``), so even a SIGKILL loses nothing. :meth:`RedisServer.stop` and
:meth:`RedisServer.start` take it away and bring it back on the same port (the outage tests); a password may be set
(``requirepass``).
"""

from __future__ import annotations

import contextlib
import gc
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

START_TIMEOUT = 10.0
JOB_STORE_THREADS = ("nanohubmcp-job-channels", "nanohubmcp-runner-beat")
"""Threads of an in-process server's Redis job store: they end once the store is garbage."""


WAKE = "job-stores-let-go"
"""What :func:`wake_job_watchers` publishes: no job's id (a job store still in use hears of no job)."""


def wake_job_watchers(url: str) -> None:
    """Publish :data:`WAKE` on every job store's status channel in the Redis at ``url`` (nothing if it is
    down): a store's channel-watching thread looks whether its store is still used once a second, or at
    once on a message; a store that is garbage ends it then."""
    import redis

    with contextlib.suppress(redis.RedisError), redis.Redis.from_url(url, socket_timeout=2) as client:
        for channel in client.pubsub_channels("nanohubmcp:*:jobs:status"):
            client.publish(channel, WAKE)


@contextlib.contextmanager
def job_stores_let_go(seconds: float = 10.0, wake: Callable[[], None] | None = None) -> Iterator[None]:
    """On leaving, end the job-store threads of the in-process servers made inside (their stores
    collected now; leave it before the Redis stops). Left running, they would retry a stopped
    Redis for the rest of the session and, ending at some later collection, leave garbage cycles
    (exceptions' tracebacks) in another test's window: tests/transports' reference-cycle test
    saw a ``StateURL`` of theirs.

    What the process held on entering is frozen meanwhile (:func:`gc.freeze`, thawed on leaving; not when
    something had frozen objects before): the collections below walk only what was made inside, not the
    whole suite's heap (a full collection of it took about a second, once or twice a test). ``wake``
    (:func:`wake_job_watchers` for the Redis the stores use), called after each collection, ends their
    channel threads at once, not at their next look a second later."""
    before = set(threading.enumerate())
    ours = gc.get_freeze_count() == 0
    if ours:
        gc.freeze()
    try:
        yield
    finally:
        try:
            deadline = time.monotonic() + seconds
            left = [t for t in threading.enumerate() if t not in before and t.name in JOB_STORE_THREADS]
            while left and time.monotonic() < deadline:
                # Collected again each round: a job's thread still ending (its tool released by the test's last
                # line) holds its server through the first collection. (A failed test's traceback may hold its
                # server: then the bound ends the wait.)
                gc.collect()
                if wake is not None:
                    wake()
                for thread in left:
                    thread.join(min(0.25, max(0.0, deadline - time.monotonic())))
                left = [t for t in left if t.is_alive()]
        finally:
            if ours:
                gc.unfreeze()


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


def connected_to(pid: int, port: int) -> bool:
    """Whether process ``pid`` holds an established TCP connection to ``port`` on 127.0.0.1 (Linux's
    ``/proc``: its sockets' inodes, looked up in the kernel's table of IPv4 connections)."""
    inodes = set()
    with contextlib.suppress(OSError):
        for fd in os.listdir(f"/proc/{pid}/fd"):
            with contextlib.suppress(OSError):
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
    with contextlib.suppress(OSError), open("/proc/net/tcp", encoding="ascii") as table:
        for line in list(table)[1:]:
            fields = line.split()  # sl, local, remote, state, queues, timer, retransmits, uid, timeout, inode
            if fields[2] == f"0100007F:{port:04X}" and fields[3] == "01" and fields[9] in inodes:
                return True
    return False


def self_signed(workdir: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key, written to ``workdir`` (the ``cryptography`` package)."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = workdir / "cert.pem", workdir / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_path, key_path


class RedisServer:
    """One redis-server process on 127.0.0.1 (see the module docstring)."""

    def __init__(
        self,
        executable: str,
        workdir: Path,
        *,
        password: str | None = None,
        tls: bool = False,
        persistent: bool = False,
    ) -> None:
        self.executable = executable
        self.persistent = persistent
        self.workdir = workdir
        self.password = password
        self.tls = tls
        self.port = free_port()
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        auth = f":{self.password}@" if self.password else ""
        if self.tls:
            return f"rediss://{auth}127.0.0.1:{self.port}/0?ssl_ca_certs={self.workdir / 'cert.pem'}"
        return f"redis://{auth}127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        """Start it, or again after :meth:`stop` on the same port; already running: nothing (a second
        redis-server would fail to bind and this one be left running, untracked, after the test)."""
        if self._proc is not None and self._proc.poll() is None:
            return self
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
            "yes" if self.persistent else "no",
            "--appendfsync",
            "always",
            "--daemonize",
            "no",
            "--protected-mode",
            "no",
        ]
        if self.password:
            args += ["--requirepass", self.password]
        if self.tls:
            cert, key = self_signed(self.workdir)
            args[1:3] = [
                "--port",
                "0",
                "--tls-port",
                str(self.port),
                "--tls-cert-file",
                str(cert),
                "--tls-key-file",
                str(key),
                "--tls-ca-cert-file",
                str(cert),
                "--tls-auth-clients",
                "no",
            ]
        log = (self.workdir / "redis.log").open("ab")
        self._proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline and self._proc.poll() is None and not listening(self.port):
            time.sleep(0.05)
        if not listening(self.port):
            raise RuntimeError(f"redis-server did not start:\n{self.logs()}")
        return self

    def freeze(self) -> None:
        """SIGSTOP: up but answering nothing (the kernel still accepts connections on its port)."""
        assert self._proc is not None
        self._proc.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        """SIGCONT: answering again (what waited is answered now)."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        """Stop it (SIGKILL: no chance to save anything)."""
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(10)

    def logs(self) -> str:
        path = self.workdir / "redis.log"
        return path.read_text(errors="replace") if path.exists() else ""
