"""A real kernel driven the way the JupyterLab panel drives it: over the ``nanohubmcp`` comm.

``CommKernel`` starts a kernel running this interpreter (isolated IPYTHONDIR, no hub variables),
executes cells, opens/closes comms and sends comm messages on the shell channel, and records
every ``comm_open``/``comm_msg``/``comm_close`` that arrives on iopub, whatever its parent.
Every wait is bounded.
"""

from __future__ import annotations

import ast
import asyncio
import queue
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kernel_launch import kernel_environment, make_manager, write_kernel_spec
from support import mcp_client

__all__ = ["COMM_TYPES", "TARGET", "CommKernel", "call", "finished", "open_panel", "write_kernel_spec"]

TARGET = "nanohubmcp"
COMM_TYPES = ("comm_open", "comm_msg", "comm_close")


class CommKernel:
    """A started kernel plus a client that speaks the panel's comm protocol."""

    def __init__(self, spec_dir: Path, ipython_dir: Path) -> None:
        self.manager = make_manager(spec_dir)
        self.manager.start_kernel(env=kernel_environment(ipython_dir))
        self.client = self.manager.client()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=60)
        self.comm_messages: list[dict[str, Any]] = []
        self._idle: set[str] = set()
        self._changed = threading.Condition()
        self._stop = threading.Event()
        self._reader = threading.Thread(target=self._pump, name="iopub-comms", daemon=True)
        self._reader.start()

    def _pump(self) -> None:
        while not self._stop.is_set():
            try:
                msg = self.client.get_iopub_msg(timeout=0.1)
            except queue.Empty:
                continue
            with self._changed:
                if msg["msg_type"] in COMM_TYPES:
                    self.comm_messages.append(msg)
                elif msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                    self._idle.add(msg["parent_header"].get("msg_id", ""))
                self._changed.notify_all()

    # -- cells ---------------------------------------------------------------------------
    def _execute(self, code: str, timeout: float, **options: Any) -> dict[str, Any]:
        """Send a cell, wait for its reply and for the kernel to go idle after it."""
        msg_id = self.client.execute(code, allow_stdin=False, **options)
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no execute_reply within {timeout} s")
            try:
                reply = self.client.get_shell_msg(timeout=min(remaining, 1.0))
            except queue.Empty:
                continue
            if reply["parent_header"].get("msg_id") == msg_id:
                break
        with self._changed:
            while msg_id not in self._idle:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(f"the kernel did not go idle within {timeout} s")
                self._changed.wait(min(remaining, 0.5))
        content: dict[str, Any] = reply["content"]
        return content

    def run(self, code: str, timeout: float = 60.0) -> dict[str, Any]:
        """Execute a cell that must succeed; returns its execute_reply content."""
        content = self._execute(code, timeout)
        assert content["status"] == "ok", f"cell failed: {content.get('ename')}: {content.get('evalue')}"
        return content

    def evaluate(self, expression: str) -> Any:
        """The value of a Python expression in the kernel, through ``repr``/``literal_eval``."""
        content = self._execute("", 30.0, user_expressions={"v": expression}, silent=False)
        result = content["user_expressions"]["v"]
        assert result["status"] == "ok", result
        return ast.literal_eval(result["data"]["text/plain"])

    # -- comms ---------------------------------------------------------------------------
    def _send(self, msg_type: str, content: dict[str, Any]) -> None:
        self.client.shell_channel.send(self.client.session.msg(msg_type, content))

    def open_comm(self, data: dict[str, Any] | None = None) -> str:
        """Open a comm to the ``nanohubmcp`` target, as the panel does; returns its id."""
        comm_id = uuid.uuid4().hex
        content = {"comm_id": comm_id, "target_name": TARGET, "data": data or {"type": "hello"}}
        self._send("comm_open", content)
        return comm_id

    def send(self, comm_id: str, data: dict[str, Any]) -> None:
        """A panel request on an open comm."""
        self._send("comm_msg", {"comm_id": comm_id, "data": data})

    def close_comm(self, comm_id: str) -> None:
        """Close a comm from the panel's side."""
        self._send("comm_close", {"comm_id": comm_id, "data": {}})

    def mark(self) -> int:
        """A position in the comm record: ``wait_for(..., since=mark)`` ignores what came before."""
        with self._changed:
            return len(self.comm_messages)

    def wait_for(
        self, predicate: Callable[[dict[str, Any]], bool], since: int = 0, timeout: float = 15.0
    ) -> dict[str, Any]:
        """The first comm message after ``since`` matching ``predicate`` (TimeoutError otherwise)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for msg in self.comm_messages[since:]:
                    if predicate(msg):
                        return msg
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError("no matching comm message arrived in time")
                self._changed.wait(min(remaining, 0.5))

    def wait_data(
        self, comm_id: str, type_: str, since: int = 0, timeout: float = 15.0,
        where: Callable[[dict[str, Any]], bool] = lambda data: True,
    ) -> dict[str, Any]:
        """The payload of the first ``type_`` message on ``comm_id`` after ``since`` that passes ``where``."""
        msg = self.wait_for(
            lambda m: m["msg_type"] == "comm_msg"
            and m["content"]["comm_id"] == comm_id
            and m["content"]["data"].get("type") == type_
            and where(m["content"]["data"]),
            since,
            timeout,
        )
        return dict(msg["content"]["data"])

    def wait_closed(self, comm_id: str, since: int = 0, timeout: float = 15.0) -> dict[str, Any]:
        """The kernel's ``comm_close`` for ``comm_id``."""
        return self.wait_for(
            lambda m: m["msg_type"] == "comm_close" and m["content"]["comm_id"] == comm_id, since, timeout
        )

    def data_since(self, comm_id: str, since: int) -> list[dict[str, Any]]:
        """Every ``comm_msg`` payload on ``comm_id`` after ``since``, in order."""
        with self._changed:
            return [
                dict(m["content"]["data"])
                for m in self.comm_messages[since:]
                if m["msg_type"] == "comm_msg" and m["content"]["comm_id"] == comm_id
            ]

    def shutdown(self) -> None:
        """Stop reading, then shut the kernel down (bounded); a second call does nothing."""
        if self._stop.is_set():
            return
        self._stop.set()
        self._reader.join(5)
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=False)


# -- what the panel and an MCP client do ---------------------------------------------------
def call(url: str, *calls: tuple[str, dict[str, Any]]) -> list[Any]:
    """Call tools with the official client (one session); returns the results."""

    async def go() -> list[Any]:
        async with mcp_client(url) as client:
            return [await client.call_tool(name, args) for name, args in calls]

    return asyncio.run(asyncio.wait_for(go(), 60))


def open_panel(kernel: CommKernel) -> tuple[str, dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Open a comm like the panel; returns its id and the status, components and calls snapshot."""
    since = kernel.mark()
    comm_id = kernel.open_comm()
    status = kernel.wait_data(comm_id, "status", since)
    components = kernel.wait_data(comm_id, "components", since)
    calls = kernel.wait_data(comm_id, "calls", since)
    return comm_id, status, components, calls


def finished(kernel: CommKernel, comm_id: str, since: int, count: int) -> dict[int, dict[str, Any]]:
    """Wait until ``count`` finished calls arrived on ``comm_id`` after ``since``; returns them by id."""
    done: dict[int, dict[str, Any]] = {}

    def enough(data: dict[str, Any]) -> bool:
        for entry in data["calls"]:
            if entry["ok"] is not None:
                done[entry["id"]] = entry
        return len(done) >= count

    kernel.wait_data(comm_id, "calls", since, where=enough)
    return done
