"""Start, watch and stop the launcher's child processes (the app and wrwroxy).

Each child runs in its own session, hence its own process group, so a terminal's Ctrl-C
reaches only the launcher and :meth:`Child.stop` can signal the child *and everything it
started* (``bash -lc`` wrappers, workers) with one ``killpg``. Every wait here is bounded.
POSIX only: nanoHUB sessions are Linux.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence

__all__ = ["Child", "connect_host", "free_port", "port_is_free", "run_bounded", "wait_for_port"]

_POLL = 0.1  # seconds between checks while waiting
_HTTP_WAIT = 2.0  # seconds an HTTP probe waits for its status line (then tried again)


def connect_host(host: str) -> str:
    """Return the address to probe for a server bound to ``host`` (wildcards -> loopback)."""
    if host in ("", "0.0.0.0"):
        return "127.0.0.1"
    if host == "::":
        return "::1"
    return host


def port_is_free(host: str, port: int) -> bool:
    """True when ``host:port`` can be bound now (checked with ``SO_REUSEADDR``, then released)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def free_port(host: str) -> int:
    """A port on ``host`` that the system reports free now (bound to port 0, then released).

    Another process may take it before it is bound again; the app then exits 2 naming the busy
    port, as for any port taken meanwhile.

    Raises:
        OSError: ``host`` cannot be bound at all (not an address of this machine).
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def run_bounded(
    argv: Sequence[str], *, timeout: float, env: Mapping[str, str] | None = None
) -> tuple[int, str, str] | None:
    """Run a short command and return ``(status, stdout, stderr)``, or None on timeout.

    The command gets a process group of its own that is killed whole on timeout:
    ``subprocess.run`` kills only the direct child and then waits, without limit, for
    grandchildren that still hold the output pipes.

    Raises:
        OSError: the command cannot be started.
    """
    proc = subprocess.Popen(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        env=None if env is None else dict(env),
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.communicate(timeout=2.0)
        return None
    return proc.returncode, out, err


def _answers(host: str, port: int) -> bool:
    try:
        with socket.create_connection((connect_host(host), port), timeout=1.0):
            return True
    except OSError:
        return False


def _answers_http(host: str, port: int) -> bool:
    """Whether ``host:port`` answers ``HEAD /`` with an HTTP status line within :data:`_HTTP_WAIT` seconds."""
    try:
        with socket.create_connection((connect_host(host), port), timeout=_HTTP_WAIT) as conn:
            conn.sendall(b"HEAD / HTTP/1.0\r\n\r\n")
            return conn.recv(5) == b"HTTP/"
    except OSError:
        return False


class Child:
    """One supervised child process in its own process group.

    Args:
        name: how messages refer to it (``"the app"``, ``"wrwroxy-0.10"``).
        argv: the command line.
        env: its complete environment.
    """

    def __init__(self, name: str, argv: Sequence[str], env: Mapping[str, str]) -> None:
        self.name = name
        self.proc = subprocess.Popen(
            list(argv), env=dict(env), stdin=subprocess.DEVNULL, start_new_session=True
        )

    @property
    def pid(self) -> int:
        return self.proc.pid

    def returncode(self) -> int | None:
        """The exit status once it has exited (negative: killed by that signal), else None."""
        return self.proc.poll()

    def stop(self, grace: float = 5.0) -> None:
        """SIGTERM the whole process group, then SIGKILL whatever is left after ``grace`` s.

        The group can outlive its leader (a ``bash -lc`` wrapper, a worker), so the group
        is signalled and watched even when the leader itself has already exited.
        """
        for sig in (signal.SIGTERM, signal.SIGKILL):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, sig)
            deadline = time.monotonic() + grace
            while True:
                self.proc.poll()  # reap the leader, or the group still looks alive
                if not _group_alive(self.proc.pid):
                    return
                if time.monotonic() >= deadline:
                    break
                time.sleep(_POLL)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def wait_for_port(
    host: str,
    port: int,
    *,
    timeout: float,
    alive: Callable[[], bool],
    cancelled: Callable[[], bool],
    http: bool = False,
) -> str:
    """Poll until ``host:port`` accepts a TCP connection; with ``http``, until it answers an HTTP request
    (any status): the server's loop serves, past what it does once listening (the app prints its banner
    then), not only its socket bound.

    Returns:
        ``"ready"``; ``"died"`` when ``alive()`` turns False first; ``"cancelled"``
        when ``cancelled()`` turns True first; ``"timeout"`` after ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    while True:
        if cancelled():
            return "cancelled"
        if not alive():
            return "died"
        if _answers_http(host, port) if http else _answers(host, port):
            return "ready"
        if time.monotonic() >= deadline:
            return "timeout"
        time.sleep(_POLL)
