"""What a process forked from the server drops first: its listening sockets, its signal
handlers, and its life after the server's.

With the ``fork`` start method (Linux's default) a job's process (:mod:`.job_process`) and the
``processes`` executor's manager are copies of the server: they would keep the server's
listening socket and signal handlers and outlive a server killed with ``kill -9``, holding its
port. :func:`forked_worker_setup`, the first thing such a process runs, closes inherited
listening sockets, restores the default ``SIGTERM`` (``SIGINT`` is left to the server) and
exits the process when its parent is gone (with its process group, when it leads one).
"""

from __future__ import annotations

import os
import signal
import socket
import stat
import threading
import time

PARENT_CHECK_SECONDS = 0.5
"""How often a forked process looks whether its parent (the server) is still alive."""


def forked_worker_setup() -> None:
    """First thing in a job's (or the manager's) process: drop what it inherited from the server.

    Closes the listening sockets a forked copy inherits (a server killed with ``kill -9`` would
    otherwise leave its port held by orphans that accept nothing), restores the default
    ``SIGTERM`` and ignores ``SIGINT`` (the server stops its processes), and starts a daemon
    thread that ends the process once its parent has gone. Never raises: the process still
    runs its job.
    """
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        _close_listening_sockets()
        parent = os.getppid()
        threading.Thread(target=_exit_when_orphaned, args=(parent,), daemon=True,
                         name="nanohubmcp-worker-parent-watch").start()
    except Exception:  # best effort: the process still runs its job
        pass


def _close_listening_sockets() -> None:
    accepting = getattr(socket, "SO_ACCEPTCONN", None)
    try:
        fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:  # no /proc: not Linux, where ``fork`` is not the default start method
        return
    if accepting is None:
        return
    for fd in fds:
        if fd < 3:
            continue
        try:
            if not stat.S_ISSOCK(os.fstat(fd).st_mode):
                continue
            sock = socket.socket(fileno=fd)
        except OSError:
            continue
        try:
            listening = sock.getsockopt(socket.SOL_SOCKET, accepting)
        except OSError:
            listening = 0
        if listening:
            sock.close()
        else:
            sock.detach()


def _exit_when_orphaned(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_SECONDS)
    try:
        # A job's process leads a group of its own (:mod:`.job_process`): what its function
        # started (a simulator run) is in it and goes too. The manager shares the server's
        # group, which is not its own to end.
        if os.getpgid(0) == os.getpid():
            os.killpg(0, signal.SIGKILL)
    finally:
        os._exit(1)
