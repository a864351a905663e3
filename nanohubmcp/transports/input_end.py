"""Seeing that the peer closed its end of an input descriptor, on a thread of its own: what stdio's exit bound
needs when its event loop is blocked and cannot read the end of input.

A pipe whose writers all closed reports ``POLLHUP``, a socket whose peer shut down its writing ``POLLRDHUP``
(Linux); :class:`HangupWatch` waits for either with ``poll()`` asking for no data event, so it reads nothing
and never wakes while lines arrive: the event loop goes on reading every line, the end of input included.
Where ``select.poll`` is missing (Windows) nothing is watched.
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
from collections.abc import Callable

HANGUP_EVENTS = select.POLLHUP | select.POLLERR | select.POLLNVAL if hasattr(select, "poll") else 0
"""What ``poll()`` says of a descriptor whose peer went away (reported whether asked for or not)."""
PEER_SHUT_DOWN = getattr(select, "POLLRDHUP", 0)
"""A socket's peer shut down its writing (Linux only; 0 elsewhere)."""


class HangupWatch:
    """Calls ``on_end`` once, on a daemon thread, when the peer of ``fd`` closed it (or ``fd`` went bad).

    Args:
        fd: the descriptor read elsewhere (a pipe or socket; a regular file or terminal never hangs up this way).
        on_end: called on the watch's thread (it may be running as :meth:`close` is called).
    """

    def __init__(self, fd: int, on_end: Callable[[], None]) -> None:
        self.fd = fd
        self._on_end = on_end
        self._wake_r, self._wake_w = -1, -1
        self._thread: threading.Thread | None = None

    def start(self) -> bool:
        """Start watching; False where ``poll()`` is missing (nothing is watched then)."""
        if not hasattr(select, "poll"):
            return False
        self._wake_r, self._wake_w = os.pipe()
        self._thread = threading.Thread(target=self._wait, name="nanohubmcp-input-end", daemon=True)
        self._thread.start()
        return True

    def close(self) -> None:
        """Stop watching (the thread ends; the descriptor is left open)."""
        if self._wake_w < 0:
            return
        with contextlib.suppress(OSError):  # the thread already ended (its end of the pipe closed)
            os.write(self._wake_w, b"x")
        os.close(self._wake_w)
        self._wake_w = -1

    def _wait(self) -> None:
        poller = select.poll()
        poller.register(self.fd, PEER_SHUT_DOWN)  # no data event: a line arriving wakes nothing
        poller.register(self._wake_r, select.POLLIN)
        try:
            while True:
                for fd, events in poller.poll():
                    if fd == self._wake_r:
                        return
                    if events & (HANGUP_EVENTS | PEER_SHUT_DOWN):
                        self._on_end()
                        return
        finally:
            os.close(self._wake_r)
