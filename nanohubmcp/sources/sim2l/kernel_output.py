"""What a Sim2L run's kernel prints goes to the server's log, not to its terminal.

jupyter_client starts a kernel with this process's stdout and stderr, and ipykernel prints its own
log lines there: at every start ``[IPKernelApp] WARNING | Kernel is running over TCP without
encryption ...``. On a server that was one such line per call, in the middle of the server's own
log (a ``--access-log`` line glued to it; with ``--workers`` interleaved). :func:`relay` makes a
pipe for the kernel's stdout and stderr instead; a thread reads it a line at a time into the
``nanohubmcp.sim2l`` logger:

- ipykernel's own lines (``[IPKernelApp] ...``) below ERROR, and its ``KeyboardInterrupt caught in
  kernel`` (the interrupt jupyter_client sends a kernel it shuts down at the run's end): at DEBUG
  (nothing the server's user can act on);
- ipykernel's ``Exception in message handler:`` record whose traceback ends in ``zmq.error.ZMQError`` (the
  kernel answering a cell on a socket its shutdown closed: what a run stopped at its ``cell_timeout`` printed,
  ~20 lines, every time): at DEBUG, the record whole (its header and the traceback lines after it);
- every other line (ipykernel's other errors with their traceback, a kernel's traceback as it dies, a program a
  cell started that writes to the kernel's own stderr): at WARNING, naming the tool.

An ERROR record of ipykernel is judged once it is whole: its lines are held until its traceback's exception line
(not followed by a chained traceback), the next ``[...]`` line, the end of the output, or :data:`_RECORD_QUIET`
seconds without a line (a traceback is written at once).

A line redrawn in place (carriage returns) is logged as it was last drawn.

nbclient, which papermill runs the notebook with, says on papermill's logger when the kernel is gone
(``Kernel died while waiting for execute reply.``; ``Error occurred while starting new kernel client ...`` when
it ended before its first reply) or a cell ran over its time (``Timeout waiting for
execute reply (12s).``): with no handler of its own, Python printed it on the server's stderr whenever a
run's kernel was killed (a call cancelled, the server stopped), died or timed out, though the run's own
error says so. :func:`quiet_kernel_end` moves that line of a run's thread to the
``nanohubmcp.sim2l`` logger, at DEBUG.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import re
import threading
from collections.abc import Iterator

__all__ = ["quiet_kernel_end", "relay"]

log = logging.getLogger("nanohubmcp.sim2l")

_LONGEST = 4096
"""Bytes of one line read at once (a longer line is logged in parts)."""

_KERNELS_OWN = re.compile(r"\[IPKernelApp\](?: (?!ERROR|CRITICAL)| ERROR \| KeyboardInterrupt caught in kernel)")
"""ipykernel's log line below ERROR (traitlets' format: ``[IPKernelApp] WARNING | text``), and its note of the
interrupt jupyter_client sends before it shuts a kernel down (at the end of every run: the server's own doing)."""

_KERNELS_ERROR = re.compile(r"\[IPKernelApp\] (?:ERROR|CRITICAL) \|")
"""The header of an ipykernel ERROR (or CRITICAL) record: the traceback lines that follow are its own."""

_CLOSED_UNDER_IT = ("[IPKernelApp] ERROR | Exception in message handler:", "zmq.error.ZMQError: ")
"""A record starting with the first and ending with a line starting with the second: the kernel sent a reply on a
socket its shutdown had closed (the server shutting down a run's kernel whose cell still ran: a ``cell_timeout``)."""

_CHAINED = ("Traceback (most recent call last):", "During handling of the above exception",
            "The above exception was the direct cause")
"""The lines that go on a traceback after its exception line (a chained exception's), or start it."""

_RECORD_QUIET = 0.25
"""Seconds without a line after which an ERROR record being held is whole."""

_KERNEL_ENDED = ("Kernel died while waiting for execute reply", "Timeout waiting for execute reply",
                 "Error occurred while starting new kernel client")
"""The starts of nbclient's lines (on papermill's logger) that say what the run's own error says (the kernel
stopped or died, also while it still started: a stop or Ctrl-C then; a cell over ``cell_timeout``)."""


def relay(tool: str) -> int:
    """A pipe whose lines go to the log as the Sim2L tool ``tool``'s kernel's; returns its write end.

    Give the write end to the kernel as its stdout and stderr, then close it here: the reading
    thread ends when the kernel (and whatever it started) has closed it too.
    """
    read, write = os.pipe()  # neither end is inherited by other children (PEP 446)
    lines: queue.SimpleQueue[str | None] = queue.SimpleQueue()
    threading.Thread(target=_read, args=(read, lines), daemon=True, name="nanohubmcp-sim2l-kernel-output").start()
    threading.Thread(target=_log, args=(lines, tool), daemon=True, name="nanohubmcp-sim2l-kernel-log").start()
    return write


def _read(fd: int, lines: queue.SimpleQueue[str | None]) -> None:
    """Each line of the pipe ``fd`` (as last drawn, empty ones left out) into ``lines``; None at its end."""
    try:
        with open(fd, "rb") as stream:
            while line := stream.readline(_LONGEST):
                text = line.decode("utf-8", "replace").rstrip("\r\n").rsplit("\r", 1)[-1].rstrip()
                if text:
                    lines.put(text)
    finally:
        lines.put(None)


def _log(lines: queue.SimpleQueue[str | None], tool: str) -> None:
    """Log ``lines`` as the kernel's of ``tool`` (see the module's docstring), until None."""
    held: list[str] = []  # an ERROR record of ipykernel, until it is whole
    while True:
        try:
            text = lines.get(timeout=_RECORD_QUIET) if held else lines.get()
        except queue.Empty:
            text = ""  # a quiet moment: the record held is whole
        if held and (not text or text.startswith("[") or (_raised(held) and not text.startswith(_CHAINED))):
            _log_record(held, tool)
            held = []
        if text is None:
            return
        if held or (_KERNELS_ERROR.match(text) and not _KERNELS_OWN.match(text)):
            held.append(text)
        elif text:
            level = logging.DEBUG if _KERNELS_OWN.match(text) else logging.WARNING
            log.log(level, "the Sim2L tool '%s' (its kernel): %s", tool, text)


def _raised(record: list[str]) -> bool:
    """Whether the ERROR record ``record`` ends with its traceback's exception line (not indented, after the
    header): a line after it is the record's only when a chained traceback follows (:data:`_CHAINED`)."""
    last = record[-1]
    return len(record) > 1 and not last[:1].isspace() and not last.startswith(_CHAINED)


def _log_record(record: list[str], tool: str) -> None:
    """An ERROR record of ipykernel, a line at a time: at DEBUG when the server's shutdown of the kernel caused it
    (:data:`_CLOSED_UNDER_IT`), else at WARNING."""
    ours = record[0].startswith(_CLOSED_UNDER_IT[0]) and record[-1].startswith(_CLOSED_UNDER_IT[1])
    for text in record:
        log.log(logging.DEBUG if ours else logging.WARNING, "the Sim2L tool '%s' (its kernel): %s", tool, text)


@contextlib.contextmanager
def quiet_kernel_end(tool: str) -> Iterator[None]:
    """While inside, nbclient's line saying the kernel of the calling thread's run is gone
    (:data:`_KERNEL_ENDED`) is logged at DEBUG as the Sim2L tool ``tool``'s, not printed: the run's
    :class:`~nanohubmcp.errors.ToolError` says it (stopped, cancelled or died). Other threads' lines,
    and papermill's other lines, are left as they are."""
    thread = threading.get_ident()

    def keep(record: logging.LogRecord) -> bool:
        if record.thread != thread or not record.getMessage().startswith(_KERNEL_ENDED):
            return True
        log.debug("the Sim2L tool '%s' (nbclient): %s", tool, record.getMessage())
        return False

    papermill = logging.getLogger("papermill")
    papermill.addFilter(keep)
    try:
        yield
    finally:
        papermill.removeFilter(keep)
