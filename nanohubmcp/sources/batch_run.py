"""Whether the Jupyter kernel this runs in is driven by a batch client, which draws no widget.

nbclient (``jupyter nbconvert --execute``, ``jupyter execute``, papermill) runs a notebook's cells with
``allow_stdin`` false: it cannot answer ``input()``, and nothing draws a widget. A progress bar displayed
there is saved as it was when shown (``HBox(children=(FloatProgress(value=0.0), ...))``, ``Executing: 0%``),
although the call then finished. Front ends (JupyterLab, Notebook, VS Code) send ``allow_stdin`` true.

Voilà runs a notebook with nbclient too (``allow_stdin`` false), but its page is a live front end: it draws the
widgets through the kernel's comms as they change. Before the notebook's first cell Voilà sets ``VOILA_KERNEL_ID``
in the kernel it renders with, to that kernel's id, which names its connection file (``kernel-<id>.json``: the
Jupyter server's kernel manager names them so): a kernel whose own connection file it names is Voilà's, and no
batch run. Every process that kernel starts inherits the variable (with ``VOILA_BASE_URL`` and the others): a
notebook it runs with papermill or nbclient (a Sim2L's run) has a kernel of another id, a batch run (review r31
F1: any ``VOILA_*`` variable counted, and those runs saved stale bars again).

The request is read with ipykernel's public ``kernel.get_parent("shell")``: the latest message of the shell
channel, for any thread (the server's too, where a call's progress is drawn from). Only an ``execute_request``
with ``allow_stdin`` false counts: a kernel that ran no cell yet, a widget's comm message (a click in a live
page), a completion request, or an ipykernel without ``get_parent`` reads as a front end. ipykernel is not imported
here: outside a kernel (a server started by a command, a test) the answer is False without it.

Voilà's page shows only what the cell its nbclient runs outputs (measured with voila 0.5.13): a display addressed
to another cell, the one that defined a ``%%mcp_tool`` called from a later cell's ``%mcp call``, is dropped, and
the live page draws nothing addressed to any cell (only widgets shown before). :func:`voila_cell` names the cell
that runs there, for a call's output to go to (:class:`nanohubmcp.jupyter.output.CellOutput`).
"""

from __future__ import annotations

import contextvars
import os
import sys
from typing import Any

__all__ = ["VOILA_KERNEL_ID", "batch_run", "under_voila", "voila_cell", "voila_kernel"]

VOILA_KERNEL_ID = "VOILA_KERNEL_ID"
"""The variable Voilà sets, in the kernel it renders a notebook with, to that kernel's id."""


def under_voila(connection_file: str) -> bool:
    """True when ``VOILA_KERNEL_ID`` names the kernel whose connection file is ``connection_file`` (a path or a
    name: ``kernel-<id>.json``), the kernel Voilà renders with; False in a kernel started from it (see the module
    docstring), and without the variable."""
    kernel_id = os.environ.get(VOILA_KERNEL_ID)
    return bool(kernel_id) and os.path.basename(connection_file) == f"kernel-{kernel_id}.json"


def _kernel_app() -> Any:
    """The running IPython kernel application, or None (outside a kernel: ipykernel not imported)."""
    app = sys.modules.get("ipykernel.kernelapp")
    if app is None or not app.IPKernelApp.initialized():
        return None
    return app.IPKernelApp.instance()


def _is_voilas(instance: Any) -> bool:
    return under_voila(str(getattr(instance, "connection_file", "") or ""))


def _execute_request(parent: Any) -> dict[str, Any] | None:
    """``parent`` when it is an ``execute_request`` (a cell), else None."""
    if not isinstance(parent, dict) or (parent.get("header") or {}).get("msg_type") != "execute_request":
        return None
    return parent


def batch_run() -> bool:
    """True in an IPython kernel whose latest shell request is a cell from a client that takes no input and draws
    no widget (nbclient's ``allow_stdin=False``: ``jupyter nbconvert --execute``, ``jupyter execute``,
    papermill, and those started from a Voilà kernel); False outside a kernel, under a front end, and in the kernel
    Voilà renders with (nbclient too, but a live page)."""
    instance = _kernel_app()
    get_parent = getattr(getattr(instance, "kernel", None), "get_parent", None)
    if get_parent is None or _is_voilas(instance):
        return False
    parent = _execute_request(get_parent("shell"))
    return parent is not None and (parent.get("content") or {}).get("allow_stdin") is False


def voila_kernel() -> Any:
    """The ipykernel kernel (its ``session``, ``iopub_socket``) when this process is the kernel Voilà renders
    with, else None (outside a kernel, and in a kernel started from Voilà's)."""
    instance = _kernel_app()
    return getattr(instance, "kernel", None) if instance is not None and _is_voilas(instance) else None


def voila_cell() -> dict[str, Any] | None:
    """In the kernel Voilà renders with, the ``execute_request`` of the cell it ran last (the one running while it
    renders the page), read from any thread and any context; None elsewhere, before a cell, and when the latest
    shell request is no cell (a widget's message from the live page).

    ipykernel 7 keeps a shell request per context: a call running in the context of the cell that defined its
    tool reads that cell with ``get_parent("shell")``. Read in an empty context it falls back to the request set
    last, which is the running cell (ipykernel 6 keeps only that one)."""
    get_parent = getattr(voila_kernel(), "get_parent", None)
    if get_parent is None:
        return None
    return _execute_request(contextvars.Context().run(get_parent, "shell"))
