"""A real IPython kernel for tests, recording every iopub message by the cell it belongs to.

``LiveKernel.run(code)`` executes a cell and returns a :class:`Cell` (status, error, text);
``submit``/``wait`` split that in two so a test can act while a cell runs. Outputs that arrive
after a cell finished (a tool's ``print`` during a later client call) are still recorded
under that cell's ``msg_id``: :meth:`LiveKernel.text` and :meth:`LiveKernel.wait_for_text` read
them. One reader thread owns the iopub socket; the shell socket is used only by the test's thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from jupyter_client.manager import KernelManager
from kernel_launch import HUB_VARS, KERNEL_NAME, kernel_environment, make_manager, write_kernel_spec

__all__ = ["HUB_VARS", "KERNEL_NAME", "Cell", "LiveKernel", "held_cell", "kernel_environment", "kernel_sharing_state",
           "make_manager", "run_async", "server_url", "started_kernels", "write_kernel_spec"]

T = TypeVar("T")

STARTUP_TIMEOUT = 60.0
CELL_TIMEOUT = 60.0


@dataclass
class Cell:
    """The outcome of one executed cell."""

    msg_id: str
    status: str
    ename: str | None = None
    evalue: str | None = None
    stdout: str = ""
    stderr: str = ""
    results: list[dict[str, Any]] = field(default_factory=list)

    @property
    def text(self) -> str:
        """stdout, stderr and the text/plain of every result or display, in one string."""
        plain = "".join(bundle.get("text/plain", "") + "\n" for bundle in self.results)
        return self.stdout + self.stderr + plain


class LiveKernel:
    """A started kernel plus a client; see the module docstring."""

    def __init__(self, manager: KernelManager) -> None:
        self.manager = manager
        self.client = manager.client()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=STARTUP_TIMEOUT)
        self._messages: list[dict[str, Any]] = []
        self._changed = threading.Condition()
        self._stop = threading.Event()
        self._replies: dict[str, dict[str, Any]] = {}
        self._reader = threading.Thread(target=self._pump, name="iopub-reader", daemon=True)
        self._reader.start()

    def _pump(self) -> None:
        while not self._stop.is_set():
            try:
                msg = self.client.get_iopub_msg(timeout=0.1)
            except queue.Empty:
                continue
            with self._changed:
                self._messages.append(msg)
                self._changed.notify_all()

    # -- executing -----------------------------------------------------------------------
    def submit(self, code: str, cell_id: str | None = None) -> str:
        """Send a cell for execution; returns its msg_id at once.

        ``cell_id`` goes into the request's ``metadata.cellId``, as JupyterLab sends it. ``allow_stdin`` is true
        as a front end sends it (a batch client, nbclient, sends false: the kernel then draws no progress bar).
        """
        if cell_id is None:
            return str(self.client.execute(code, allow_stdin=True))
        content = {
            "code": code,
            "silent": False,
            "store_history": True,
            "user_expressions": {},
            "allow_stdin": True,
            "stop_on_error": True,
        }
        msg = self.client.session.msg("execute_request", content, metadata={"cellId": cell_id})
        self.client.shell_channel.send(msg)
        return str(msg["header"]["msg_id"])

    def wait(self, msg_id: str, timeout: float = CELL_TIMEOUT) -> Cell:
        """Wait for the cell's reply and for its outputs to be flushed (kernel idle)."""
        deadline = time.monotonic() + timeout
        while msg_id not in self._replies:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no execute_reply for {msg_id} within {timeout} s")
            try:
                reply = self.client.get_shell_msg(timeout=min(remaining, 1.0))
            except queue.Empty:
                continue
            self._replies[reply["parent_header"].get("msg_id", "")] = reply

        def idle() -> bool:
            return any(
                m["msg_type"] == "status" and m["content"]["execution_state"] == "idle"
                for m in self.messages(msg_id)
            )

        self._wait_messages(idle, deadline)
        content = self._replies[msg_id]["content"]
        cell = Cell(msg_id, content["status"], content.get("ename"), content.get("evalue"))
        self._fill(cell)
        return cell

    def run(self, code: str, timeout: float = CELL_TIMEOUT, cell_id: str | None = None) -> Cell:
        """Execute a cell and wait for it."""
        return self.wait(self.submit(code, cell_id), timeout)

    def run_ok(self, code: str, timeout: float = CELL_TIMEOUT, cell_id: str | None = None) -> Cell:
        """Execute a cell that must succeed (its error text otherwise fails the test)."""
        cell = self.run(code, timeout, cell_id)
        assert cell.status == "ok", f"cell failed: {cell.ename}: {cell.evalue}\n{cell.text}"
        return cell

    # -- outputs -------------------------------------------------------------------------
    def messages(self, msg_id: str) -> list[dict[str, Any]]:
        """Every iopub message whose parent is the cell ``msg_id``, so far."""
        with self._changed:
            return [m for m in self._messages if m["parent_header"].get("msg_id") == msg_id]

    def comm_states(self) -> list[dict[str, Any]]:
        """The ``state`` of every comm message so far (widget updates), in order."""
        with self._changed:
            return [dict(m["content"]["data"]["state"]) for m in self._messages
                    if m["msg_type"] == "comm_msg" and "state" in (m["content"].get("data") or {})]

    def _fill(self, cell: Cell) -> None:
        cell.stdout = cell.stderr = ""
        cell.results = []
        for msg in self.messages(cell.msg_id):
            kind, content = msg["msg_type"], msg["content"]
            if kind == "stream":
                if content["name"] == "stdout":
                    cell.stdout += content["text"]
                else:
                    cell.stderr += content["text"]
            elif kind in ("display_data", "execute_result", "update_display_data"):
                cell.results.append(content["data"])
            elif kind == "error":
                cell.stderr += f"{content['ename']}: {content['evalue']}\n"

    def text(self, cell: Cell) -> str:
        """The cell's text output now, including output that arrived after it finished."""
        self._fill(cell)
        return cell.text

    def wait_for_text(self, cell: Cell, needle: str, timeout: float = CELL_TIMEOUT) -> str:
        """Wait until ``needle`` shows up among the outputs of ``cell``; returns the text. (The bound only
        matters when it never comes: on a loaded machine a kernel's output took over 10 s; found by a
        fresh-user trial.)"""
        self._wait_messages(lambda: needle in self.text(cell), time.monotonic() + timeout)
        return self.text(cell)

    def _wait_messages(self, predicate: Any, deadline: float) -> None:
        with self._changed:
            while not predicate():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError("the expected kernel output did not arrive in time")
                self._changed.wait(min(remaining, 0.5))

    def shutdown(self) -> None:
        """Stop reading, then shut the kernel down (bounded); a second call does nothing."""
        if self._stop.is_set():
            return
        self._stop.set()
        self._reader.join(5)
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=False)


@contextlib.contextmanager
def started_kernels(
    specs: Path, ipython_dir: Path, cwd: Callable[[], Path] | None = None
) -> Iterator[Callable[..., LiveKernel]]:
    """Yields ``start(**env)`` -> a running :class:`LiveKernel` of the kernelspec in ``specs``, with
    ``ipython_dir`` as its IPYTHONDIR and ``env`` added to its environment (in the folder ``cwd()`` when
    given); every kernel it started is shut down when the block ends."""
    started: list[LiveKernel] = []

    def start(**env: str) -> LiveKernel:
        manager = make_manager(specs)
        where = {} if cwd is None else {"cwd": str(cwd())}
        manager.start_kernel(env=kernel_environment(ipython_dir, **env), **where)
        kernel = LiveKernel(manager)
        started.append(kernel)
        return kernel

    try:
        yield start
    finally:
        for kernel in started:
            kernel.shutdown()


def run_async(coro: Coroutine[Any, Any, T], timeout: float = 60.0) -> T:
    """Run a client coroutine to completion from a sync test, bounded in time."""
    return asyncio.run(asyncio.wait_for(coro, timeout))


def kernel_sharing_state(start_kernel: Any, state: str) -> LiveKernel:
    """A kernel from the ``start_kernel`` fixture with the state directory ``state`` (which other
    kernels of the test share), no token, ``%load_ext nanohubmcp`` done and port 0."""
    live: LiveKernel = start_kernel(NANOHUBMCP_STATE_DIR=state, MCP_TOKEN="")
    live.run_ok("%load_ext nanohubmcp\n%config NanohubMCP.port = 0")
    return live


def held_cell(release: Path, bound: float = 30.0) -> str:
    """A cell's code that prints ``cell running`` and then runs until the file ``release`` exists (the
    test writes it once done with the busy kernel), ``bound`` seconds at most: a test waits for no
    fixed length of cell, and a call that waited for the cell takes the whole bound."""
    return (f"import os, time\nprint('cell running', flush=True)\n_end = time.monotonic() + {bound!r}\n"
            f"while not os.path.exists({str(release)!r}) and time.monotonic() < _end:\n    time.sleep(0.02)")


def server_url(live: LiveKernel) -> str:
    """The Streamable HTTP endpoint of the kernel's server (``%mcp url``)."""
    cell = live.run_ok("%mcp url")
    return str(cell.results[-1]["text/plain"]).strip("'\"")
