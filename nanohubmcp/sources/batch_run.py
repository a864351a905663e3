"""Whether the Jupyter kernel this runs in is driven by a batch client, which draws no widget.

nbclient (``jupyter nbconvert --execute``, ``jupyter execute``, papermill) runs a notebook's cells with
``allow_stdin`` false: it cannot answer ``input()``, and nothing draws a widget. A progress bar displayed
there is saved as it was when shown (``HBox(children=(FloatProgress(value=0.0), ...))``, ``Executing: 0%``),
although the call then finished. Front ends (JupyterLab, Notebook, VS Code) send ``allow_stdin`` true.

ipykernel is not imported here: outside a kernel (a server started by a command, a test) the answer is
False without it.
"""

from __future__ import annotations

import sys

__all__ = ["batch_run"]


def batch_run() -> bool:
    """True in an IPython kernel whose latest cell came from a client that takes no input (nbclient's
    ``allow_stdin=False``); False outside a kernel and under a front end."""
    app = sys.modules.get("ipykernel.kernelapp")
    if app is None or not app.IPKernelApp.initialized():
        return False
    kernel = getattr(app.IPKernelApp.instance(), "kernel", None)
    return kernel is not None and not getattr(kernel, "_allow_stdin", True)
