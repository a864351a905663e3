"""How an exported notebook's ``start_mcp.py`` ends once its own ``server.run()`` served: as ``nanohubmcp run`` ends.

``python start_mcp.py`` serves in a process the script owns; once ``run()`` returned (SIGTERM, Ctrl-C, stdio's end
of input) the interpreter's own exit freed every object and module the cells loaded: 3-4 s for a notebook serving a
Sim2L and a Rappture tool (papermill, nbclient, pint, matplotlib), while ``nanohubmcp run`` of the same file exited
at once (trial64 F10). The exported script serves inside :func:`ends_as_served`, so its process ends as the
command's does (:func:`~nanohubmcp.processes.process_end.end_served_process`: the ``atexit`` handlers run, open
files flushed, the heap not freed). A hand-written script may use it the same way.

A script that cannot start, because its cells register a tool the server refuses (trial74 F1: a decorator made the
function a generator, which the export cannot tell from the code it does not run), ends as ``nanohubmcp run`` of it
ends: one line on stderr naming the tool and what to fix, exit status 1, not a traceback
(:func:`refusals_in_one_line`, which the exported script calls before its cells run).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from types import TracebackType
from typing import Protocol

from ..errors import NanohubMCPError

__all__ = ["ends_as_served", "refusals_in_one_line"]


class _Serving(Protocol):
    @property
    def running(self) -> bool: ...


@contextlib.contextmanager
def ends_as_served(server: _Serving) -> Iterator[None]:
    """Around a script's blocking ``server.run(...)``: once it returns with ``server`` stopped, end the process with
    status 0 as ``nanohubmcp run`` does (within its exit grace, its heap not freed; never returns then).

    An exception out of the block (a usage error's ``SystemExit``, a busy port's ``ConfigurationError``) goes on as
    it would without it; so does a ``run()`` that returned with ``server`` still serving (in a Jupyter kernel, or a
    running event loop, ``run()`` serves in the background: that process is not the server's to end).

    Example:
        ```python
        if __name__ == "__main__":
            with ends_as_served(server):
                server.run()
        ```
    """
    from ..processes.process_end import end_served_process, served

    served()  # (its start-up is then frozen for good, as the command's: the exit walks only what serving made)
    yield
    if not server.running:
        end_served_process(0)


def refusals_in_one_line() -> None:
    """From now on, a refusal of nanohubmcp's that ends the script (a :class:`~nanohubmcp.errors.NanohubMCPError`
    nothing caught: a tool whose registration is refused, a port in use) is said in one line on stderr, ``start_mcp.py:
    error: <its message>``, as ``nanohubmcp run start_mcp.py`` says it, and the exit status is 1; any other exception
    keeps its traceback. Call it at the top of the script, under ``if __name__ == "__main__":`` (the commands that
    import the script say its refusals themselves).

    Example:
        ```python
        if __name__ == "__main__":
            from nanohubmcp.cli import refusals_in_one_line

            refusals_in_one_line()
        ```
    """
    program, earlier = os.path.basename(sys.argv[0]) or "python", sys.excepthook

    def said(kind: type[BaseException], exc: BaseException, trace: TracebackType | None) -> None:
        if not isinstance(exc, NanohubMCPError):
            earlier(kind, exc, trace)
            return
        print(f"{program}: error: {exc}", file=sys.stderr, flush=True)

    sys.excepthook = said
