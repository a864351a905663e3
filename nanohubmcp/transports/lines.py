"""Newline-delimited JSON messages on file descriptors: what the stdio transport and the
``nanohubmcp bridge`` share.

:func:`protect_stdout` keeps standard output for protocol messages alone; :class:`LineReader`
reads lines on a thread of its own and hands them to the event loop; :class:`LineWriter` writes
one JSON message per line, from any thread, never interleaving two.

Source: MCP 2025-11-25, Basic § Transports § stdio (messages are delimited by newlines and
contain no embedded newlines; the server writes nothing to stdout that is not a message).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
from typing import Any

from ..protocol import jsonenc

MAX_LINE_BYTES = 4 * 1024 * 1024
"""Longest accepted message line; longer ones are reported as :data:`TOO_LONG` and skipped."""
TOO_LONG = b"\x00"
"""Stands for a line over the limit on the reader's queue."""

_protocol_fd: int | None = None


def protect_stdout() -> int:
    """Keep stdout for the protocol alone; returns the file descriptor protocol writes go to.

    The original stdout is duplicated to a private descriptor, then descriptor 1 is pointed at
    stderr, so anything else written to "stdout" — ``print()``, C extensions, child processes —
    reaches stderr instead of corrupting the stream. Idempotent.
    """
    global _protocol_fd
    if _protocol_fd is None:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        _protocol_fd = os.dup(1)
        os.dup2(2, 1)
        reconfigure = getattr(sys.stdout, "reconfigure", None)
        if reconfigure is not None:  # print() now reaches stderr: show it line by line, like stderr
            with contextlib.suppress(Exception):
                reconfigure(line_buffering=True)
    return _protocol_fd


def stop_on_signals(stop: asyncio.Event) -> None:
    """Set ``stop`` on SIGINT/SIGTERM (where the platform and thread allow signal handlers)."""
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)


class LineWriter:
    """Writes JSON messages, one per line, to a file descriptor (thread-safe).

    ``closed`` turns true once the reader on the other end went away (a write failed).
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.closed = False
        self._lock = threading.Lock()

    def write(self, message: Any) -> None:
        """Write ``message`` (a JSON value) as one line; nothing once closed."""
        if self.closed:
            return
        self.write_bytes(jsonenc.dumpb(message))

    def write_bytes(self, data: bytes) -> None:
        """Write one line of JSON text already encoded (without its newline)."""
        view = memoryview(data + b"\n")
        with self._lock:
            try:
                while view:
                    view = view[os.write(self.fd, view) :]
            except OSError:  # the other end closed: nobody is listening any more
                self.closed = True


class LineReader:
    """Reads lines from a file descriptor on a daemon thread; :meth:`get` hands them out.

    Reads the descriptor itself (``os.read``), not ``sys.stdin``: a daemon thread blocked
    inside a buffered reader would hold its lock when the interpreter exits (a crash).

    Args:
        fd: where to read (standard input by default).
        max_line_bytes: longest line; a longer one comes out as :data:`TOO_LONG`.
    """

    def __init__(self, fd: int = 0, max_line_bytes: int = MAX_LINE_BYTES) -> None:
        self.in_fd = fd
        self.max_line_bytes = max_line_bytes
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        loop = asyncio.get_running_loop()
        threading.Thread(target=self._read_lines, args=(loop, self.queue), name="nanohubmcp-stdin", daemon=True).start()

    async def get(self, *stops: asyncio.Future[Any]) -> bytes | None:
        """The next line (with its newline), :data:`TOO_LONG`, or None at end of input or once
        one of ``stops`` is done."""
        getter = asyncio.ensure_future(self.queue.get())
        done, _ = await asyncio.wait({getter, *stops}, return_when=asyncio.FIRST_COMPLETED)
        if getter not in done:
            getter.cancel()
            return None
        return getter.result()

    def _read_lines(self, loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[bytes | None]) -> None:
        """Reader thread: put each line on ``queue``; None at end of input.

        Reads the descriptor itself (``os.read``), not ``sys.stdin``: a daemon thread blocked
        inside a buffered reader would hold its lock when the interpreter exits (a crash).
        """
        limit = self.max_line_bytes
        pending = bytearray()
        skipping = False
        try:
            while True:
                chunk = os.read(self.in_fd, 1 << 16)
                if not chunk:
                    break
                pending += chunk
                while True:
                    end = pending.find(b"\n")
                    if end < 0:
                        if len(pending) > limit:  # an over-long line: drop it up to its newline
                            pending.clear()
                            if not skipping:
                                skipping = True
                                loop.call_soon_threadsafe(queue.put_nowait, TOO_LONG)
                        break
                    line = bytes(pending[: end + 1])
                    del pending[: end + 1]
                    if skipping:
                        skipping = False
                        continue
                    if len(line) > limit + 1:
                        line = TOO_LONG
                    loop.call_soon_threadsafe(queue.put_nowait, line)
        except (OSError, ValueError):
            pass
        with contextlib.suppress(RuntimeError):  # the loop already closed
            if pending.strip() and not skipping:  # a last line without its newline
                loop.call_soon_threadsafe(queue.put_nowait, bytes(pending))
            loop.call_soon_threadsafe(queue.put_nowait, None)
