"""Whether the Jupyter kernel this runs in is driven by a batch client, which draws no widget.

nbclient (``jupyter nbconvert --execute``, ``jupyter execute``, papermill) runs a notebook's cells with
``allow_stdin`` false: it cannot answer ``input()``, and nothing draws a widget. A progress bar displayed
there is saved as it was when shown (``HBox(children=(FloatProgress(value=0.0), ...))``, ``Executing: 0%``),
although the call then finished. Front ends (JupyterLab, Notebook, VS Code) send ``allow_stdin`` true.

Voilà runs a notebook with nbclient too (``allow_stdin`` false), but its page is a live front end: it draws the
widgets through the kernel's comms as they change. A kernel Voilà starts has ``VOILA_*`` variables in its
environment (``VOILA_BASE_URL``, ``VOILA_SERVER_URL``, ``VOILA_APP_PORT``, ``VOILA_PREHEAT``; and
``VOILA_KERNEL_ID``, which it sets in the kernel before the notebook's first cell): there it is no batch run.

The request is read with ipykernel's public ``kernel.get_parent("shell")``: the latest message of the shell
channel, for any thread (the server's too, where a call's progress is drawn from). Only an ``execute_request``
with ``allow_stdin`` false counts: a kernel that ran no cell yet, a widget's comm message (a click in a live
page), a completion request, or an ipykernel without ``get_parent`` reads as a front end. ipykernel is not imported
here: outside a kernel (a server started by a command, a test) the answer is False without it.
"""

from __future__ import annotations

import os
import sys

__all__ = ["VOILA_PREFIX", "batch_run", "under_voila"]

VOILA_PREFIX = "VOILA_"
"""What the names of the variables Voilà puts in its kernels' environment begin with."""


def under_voila() -> bool:
    """True when a variable of this process's environment is one of Voilà's (see the module docstring)."""
    return any(name.startswith(VOILA_PREFIX) for name in os.environ)


def batch_run() -> bool:
    """True in an IPython kernel whose latest shell request is a cell from a client that takes no input and draws
    no widget (nbclient's ``allow_stdin=False``: ``jupyter nbconvert --execute``, ``jupyter execute``,
    papermill); False outside a kernel, under a front end, and under Voilà (nbclient too, but a live page)."""
    app = sys.modules.get("ipykernel.kernelapp")
    if app is None or not app.IPKernelApp.initialized():
        return False
    kernel = getattr(app.IPKernelApp.instance(), "kernel", None)
    get_parent = getattr(kernel, "get_parent", None)
    if get_parent is None or under_voila():
        return False
    parent = get_parent("shell")
    if not isinstance(parent, dict) or (parent.get("header") or {}).get("msg_type") != "execute_request":
        return False
    return (parent.get("content") or {}).get("allow_stdin") is False
