"""What a Sim2L run's kernel prints goes to the server's log, not to its terminal.

jupyter_client starts a kernel with this process's stdout and stderr, and ipykernel prints its own
log lines there: at every start ``[IPKernelApp] WARNING | Kernel is running over TCP without
encryption ...``. On a server that was one such line per call, in the middle of the server's own
log (a ``--access-log`` line glued to it; with ``--workers`` interleaved). :func:`relay` makes a
pipe for the kernel's stdout and stderr instead; a thread reads it a line at a time into the
``nanohubmcp.sim2l`` logger:

- ipykernel's own lines (``[IPKernelApp] ...``) below ERROR: at DEBUG (said at every start; nothing
  the server's user can act on);
- every other line (a kernel's traceback as it dies, a program a cell started that writes to the
  kernel's own stderr): at WARNING, naming the tool.

A line redrawn in place (carriage returns) is logged as it was last drawn.
"""

from __future__ import annotations

import logging
import os
import re
import threading

__all__ = ["relay"]

log = logging.getLogger("nanohubmcp.sim2l")

_LONGEST = 4096
"""Bytes of one line read at once (a longer line is logged in parts)."""

_KERNELS_OWN = re.compile(r"\[IPKernelApp\](?! (?:ERROR|CRITICAL) \|)")
"""ipykernel's log line below ERROR (traitlets' format: ``[IPKernelApp] WARNING | text``)."""


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
