"""A real Voilà server for tests: ``voila NOTEBOOK`` in a process of its own, its rendered page, and the widget
states its kernel holds (what the live page draws).

:func:`voila_serving` starts ``python -m voila`` (this interpreter's) on 127.0.0.1 with a free port, no browser,
isolated Jupyter config, data and runtime directories, the test kernelspec on ``JUPYTER_PATH`` and an empty
IPython directory; it yields a :class:`VoilaApp` once the server says it runs, and stops it (SIGTERM to its
process group: Voilà shuts its kernels down; SIGKILL after 15 s). Every wait is bounded.

Voilà executes the notebook while it sends the page (chunked: :meth:`VoilaApp.page` reads the whole response).
Widget outputs are saved in the page as views (``application/vnd.jupyter.widget-view+json``, a ``model_id``);
the page's script then asks the kernel for every widget's state over the kernel's websocket (the
``jupyter.widget.control`` comm, ``request_states``) and draws the views with them: :meth:`VoilaApp.widget_states`
asks the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
from jupyter_servers import free_port, server_environment, stop_group
from kernel_launch import KERNEL_NAME, write_kernel_spec
from nbformat.v4 import new_code_cell, new_notebook

__all__ = ["VoilaApp", "cells_of", "voila_notebook", "voila_serving"]

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
CONTROL_PROTOCOL = "1.0.0"
"""ipywidgets' widget control protocol (``jupyter.widget.control``), which the kernel checks."""


def voila_notebook(path: Path, cells: list[str]) -> Path:
    """Write a notebook of code ``cells`` for the test kernelspec (language python: Voilà sets ``VOILA_KERNEL_ID``
    only in a Python kernel) at ``path``; returns ``path``."""
    notebook = new_notebook(cells=[new_code_cell(source) for source in cells])
    notebook.metadata["kernelspec"] = {"name": KERNEL_NAME, "display_name": "nanohubmcp tests", "language": "python"}
    nbformat.write(notebook, path)
    return path


def cells_of(page: str) -> dict[int, str]:
    """The page's HTML of each cell, by Voilà's ``cell-index`` (1 for the notebook's first cell)."""
    parts = re.split(r'<div cell-index="(\d+)">', page)
    return {int(parts[i]): parts[i + 1] for i in range(1, len(parts) - 1, 2)}


class VoilaApp:
    """A running ``voila`` process (see the module docstring)."""

    def __init__(self, process: subprocess.Popen[bytes], log: Path, url: str) -> None:
        self.process = process
        self.log = log
        self.url = url
        """Its base URL (no trailing slash)."""

    def output(self) -> str:
        """What the server printed so far."""
        return self.log.read_text(errors="replace")

    def page(self, timeout: float = 60) -> str:
        """GET the app's page: Voilà starts a kernel, runs the notebook and streams the page as cells finish."""
        with urllib.request.urlopen(self.url + "/", timeout=timeout) as response:
            return str(response.read().decode("utf-8"))

    def widget_states(self, kernel_id: str, timeout: float = 30) -> dict[str, dict[str, Any]]:
        """Every widget model of the kernel ``kernel_id``: ``{model_id: {"model_name": ..., "state": {...}}}``, as
        the live page gets them (the ``jupyter.widget.control`` comm's ``update_states`` answer)."""
        return asyncio.run(asyncio.wait_for(self._request_states(kernel_id), timeout))

    async def _request_states(self, kernel_id: str) -> dict[str, dict[str, Any]]:
        from tornado.websocket import websocket_connect

        session = uuid.uuid4().hex
        url = f"{self.url.replace('http', 'ws', 1)}/api/kernels/{kernel_id}/channels?session_id={session}"
        socket_ = await websocket_connect(url)
        comm_id = uuid.uuid4().hex

        def message(msg_type: str, content: dict[str, Any], metadata: dict[str, Any]) -> str:
            header = {"msg_id": uuid.uuid4().hex, "msg_type": msg_type, "session": session, "username": "test",
                      "version": "5.3", "date": ""}
            return json.dumps({"header": header, "parent_header": {}, "metadata": metadata, "content": content,
                               "channel": "shell", "buffers": []})

        try:
            await socket_.write_message(message("comm_open", {"comm_id": comm_id, "target_name":
                                                              "jupyter.widget.control", "data": {}},
                                                {"version": CONTROL_PROTOCOL}))
            await socket_.write_message(message("comm_msg", {"comm_id": comm_id, "data": {"method": "request_states"}},
                                                {}))
            while True:
                raw = await socket_.read_message()
                if raw is None:
                    raise AssertionError(f"the kernel's websocket closed before the widget states came:\n"
                                         f"{self.output()[-3000:]}")
                if isinstance(raw, bytes):
                    continue
                answer = json.loads(raw)
                content = answer.get("content") or {}
                if answer.get("msg_type") == "comm_msg" and content.get("comm_id") == comm_id:
                    return dict(content["data"]["states"])
        finally:
            socket_.close()

    def stop(self) -> None:
        """SIGTERM its process group (the server shuts its kernels down), SIGKILL after 15 s."""
        stop_group(self.process)


@contextlib.contextmanager
def voila_serving(notebook: Path, home: Path, start_seconds: float = 60) -> Iterator[VoilaApp]:
    """``voila NOTEBOOK`` served from its folder, with ``home`` for its directories and log (see the module
    docstring); stopped afterwards."""
    write_kernel_spec(home / "jupyter" / "kernels")
    (home / "ipython").mkdir(parents=True, exist_ok=True)
    env = {name: value for name, value in server_environment(home, home / "jupyter").items()
           if not name.startswith("VOILA_")}
    port = free_port()
    log = home / "voila.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "voila", str(notebook), "--no-browser", "--Voila.ip=127.0.0.1", f"--port={port}",
             "--Voila.port_retries=0"],
            env=env, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=notebook.parent,
            start_new_session=True,
        )
    app = VoilaApp(process, log, f"http://127.0.0.1:{port}")
    try:
        deadline = time.monotonic() + start_seconds
        while "Voilà is running at" not in app.output():
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"voila did not start (exit {process.poll()}):\n{app.output()}")
            time.sleep(0.05)
        yield app
    finally:
        app.stop()
