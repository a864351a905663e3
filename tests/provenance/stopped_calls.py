"""Calls a real ``nanohubmcp run`` process's SIGTERM cuts short: :func:`stop_while_running` serves an app file,
starts the calls with the official client, waits for each tool to say it runs (``"<tool>: running"`` on stderr),
sends SIGTERM and returns what the clients got and the records the stop left, read with ``nanohubmcp provenance
list``. The tests of a stopped call's record and of its crate share it."""

from __future__ import annotations

import signal
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from provenance_rows import provenance_rows
from support import app_server, mcp_client, wait_until


@dataclass
class Stopped:
    """What a stop left: the state directory, the calls' errors, the provenance rows (newest first)."""

    state: Path
    errors: list[MCPError]
    rows: list[str]


async def stop_while_running(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, app: str,
                             tools: tuple[str, ...]) -> Stopped:
    """Serve ``app`` (its state under ``tmp_path/state``, exit grace 4 s), call each of ``tools`` without
    arguments, and stop the server with SIGTERM once all of them run; the server must exit 0."""
    (tmp_path / "app.py").write_text(app)
    state = tmp_path / "state"
    monkeypatch.setenv("NANOHUBMCP_STATE_DIR", str(state))
    with app_server(tmp_path / "app.py", "--exit-grace", "4", log=tmp_path / "server.log") as served:
        errors: list[MCPError] = []
        with anyio.fail_after(120):
            try:
                async with mcp_client(f"{served.url}mcp") as client, anyio.create_task_group() as group:

                    async def call(tool: str) -> None:
                        try:
                            await client.call_tool(tool, {})
                        except MCPError as exc:
                            errors.append(exc)

                    for tool in tools:
                        group.start_soon(call, tool)
                    await anyio.to_thread.run_sync(lambda: wait_until(
                        lambda: all(f"{t}: running" in served.output for t in tools), "the calls running", 60))
                    served.process.send_signal(signal.SIGTERM)
            except BaseException:  # the session's teardown against a server now gone
                if len(errors) < len(tools):
                    raise
        assert served.process.wait(60) == 0, served.output
        return Stopped(state, errors, provenance_rows(state, served.output))
