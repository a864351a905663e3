"""A line the visitor of a Voilà page reads, whatever the notebook's cell hides.

Voilà (0.5.13, without ``--show_tracebacks=True``) keeps a cell's stdout and displays on the page but drops its
errors and its stderr, and stops at the first failing cell: a cell that raises leaves the visitor a blank page.
:func:`show_on_page` sends a line as the running cell's stdout before such an error. It goes straight to the
kernel's IOPub socket, addressed to that cell, as ipykernel sends a cell's error: a ``%%capture`` first line,
which a Voilà app uses to hide the server's status, does not hide it either.
"""

from __future__ import annotations

import sys

from ..sources.batch_run import voila_cell, voila_kernel

__all__ = ["show_on_page"]


def show_on_page(line: str) -> bool:
    """In the kernel Voilà renders a page with, while it runs a cell: show ``line`` (one line of text, no newline)
    as that cell's stdout and return True. Elsewhere (a notebook, a batch run, plain IPython) do nothing and return
    False."""
    cell = voila_cell()
    kernel = voila_kernel()
    session = getattr(kernel, "session", None)
    socket = getattr(kernel, "iopub_socket", None)
    if cell is None or session is None or socket is None:
        return False
    sys.stdout.flush()  # what the cell printed before comes first
    session.send(socket, "stream", {"name": "stdout", "text": line + "\n"}, parent=cell, ident=b"stream.stdout")
    return True
