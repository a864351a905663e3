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
- every other line (a kernel's traceback as it dies, a program a cell started that writes to the
  kernel's own stderr): at WARNING, naming the tool.

A line redrawn in place (carriage returns) is logged as it was last drawn.

nbclient, which papermill runs the notebook with, says on papermill's logger when the kernel is gone
(``Kernel died while waiting for execute reply.``) or a cell ran over its time (``Timeout waiting for
execute reply (12s).``): with no handler of its own, Python printed it on the server's stderr whenever a
run's kernel was killed (a call cancelled, the server stopped), died or timed out, though the run's own
error says so. :func:`quiet_kernel_end` moves that line of a run's thread to the
``nanohubmcp.sim2l`` logger, at DEBUG.
"""

from __future__ import annotations

import contextlib
import logging
import os
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

_KERNEL_ENDED = ("Kernel died while waiting for execute reply", "Timeout waiting for execute reply")
"""The starts of nbclient's lines (on papermill's logger) that say what the run's own error says (the kernel
stopped or died; a cell over ``cell_timeout``)."""


def relay(tool: str) -> int:
    """A pipe whose lines go to the log as the Sim2L tool ``tool``'s kernel's; returns its write end.

    Give the write end to the kernel as its stdout and stderr, then close it here: the reading
    thread ends when the kernel (and whatever it started) has closed it too.
    """
    read, write = os.pipe()  # neither end is inherited by other children (PEP 446)
    threading.Thread(target=_read, args=(read, tool), daemon=True, name="nanohubmcp-sim2l-kernel-output").start()
    return write


def _read(fd: int, tool: str) -> None:
    with open(fd, "rb") as stream:
        while line := stream.readline(_LONGEST):
            text = line.decode("utf-8", "replace").rstrip("\r\n").rsplit("\r", 1)[-1].rstrip()
            if not text:
                continue
            if _KERNELS_OWN.match(text):
                log.debug("the Sim2L tool '%s' (its kernel): %s", tool, text)
            else:
                log.warning("the Sim2L tool '%s' (its kernel): %s", tool, text)


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
