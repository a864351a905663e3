"""A Jupyter server as a test's process (``jupyter lab`` in tests/lab, ``voila`` in tests/jupyter): its port, its
environment and its stop.

- :func:`free_port`: a free loopback port for it (``--port=...`` with no retries).
- :func:`server_environment`: this process's environment without a hub session's variables, with the Jupyter
  config, data and runtime directories and the IPython directory under a scratch ``home`` (nothing of the user's
  read or written) and ``JUPYTER_PATH`` naming where the kernelspec or the extension is.
- :func:`stop_group`: SIGTERM to its process group (it stops its kernels), SIGKILL after a grace; for a server
  started with ``start_new_session=True``.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
from pathlib import Path

from kernel_launch import kernel_environment


def free_port() -> int:
    """A port free on 127.0.0.1 now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_environment(home: Path, jupyter_path: Path) -> dict[str, str]:
    """The environment of a Jupyter server with its directories under ``home`` (``config``, ``data``, ``runtime``,
    ``ipython``) and ``JUPYTER_PATH=jupyter_path`` (see the module docstring)."""
    return kernel_environment(home / "ipython", JUPYTER_PATH=str(jupyter_path), JUPYTER_CONFIG_DIR=str(home / "config"),
                              JUPYTER_DATA_DIR=str(home / "data"), JUPYTER_RUNTIME_DIR=str(home / "runtime"),
                              JUPYTER_PLATFORM_DIRS="1")


def stop_group(process: subprocess.Popen[bytes], grace: float = 15) -> None:
    """SIGTERM ``process``'s group (the server and its kernels), SIGKILL after ``grace`` seconds; nothing if it
    ended already."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(grace)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(5)
