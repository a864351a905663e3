"""A tool's error text that quotes a ``Secret`` argument's value has it replaced by ``***`` before it is
stored (provenance record, job record), logged or answered (review r36 F5).

``{"alice": ...}[password]`` raises ``KeyError('hunter2secret')``: the call's error text
``KeyError: 'hunter2secret'`` was stored verbatim in the provenance record (``schema/secret.py`` promises
the records keep a Secret's name, never its value), written to the log's traceback and sent to the client.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest

from nanohubmcp import MCPServer, Secret

pytestmark = pytest.mark.timeout(120)

VALUE = "hunter2secret"
JOB_VALUE = "job-pw-0123456789"
USERS = {"alice": "ok"}


def files_holding(folder: Path, value: str) -> list[str]:
    return [path.name for path in folder.rglob("*") if path.is_file() and value.encode() in path.read_bytes()]


def test_a_secret_in_an_error_is_hidden_everywhere(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="nanohubmcp.tool")
    server = MCPServer("secret-errors", state_dir=str(tmp_path))

    @server.tool()
    def login(user: str, password: Secret) -> str:
        """Log in."""
        return USERS[password]

    @server.tool()
    def login_quoting(user: str, password: Secret) -> str:
        """Log in, quoting the password in the error."""
        raise ValueError(f"user {user} gave {password!r} and {password}")

    @server.async_tool()
    def fetch(dataset: str, token: Secret) -> str:
        """Fetch, as a job."""
        raise PermissionError(f"token {token} refused for {dataset}")

    server.start(port=0)
    try:
        first = server.call("login", {"user": "bob", "password": VALUE})
        second = server.call("login_quoting", {"user": "bob", "password": VALUE})
        handle = server.call("fetch", {"dataset": "bands", "token": JOB_VALUE})
        job_id = handle["structuredContent"]["job_id"]
        deadline = time.monotonic() + 30
        while (answer := server.call("get_job_result", {"job_id": job_id}))["structuredContent"].get("status") in (
                "queued", "running", "submitted"):
            assert time.monotonic() < deadline, answer
            time.sleep(0.02)
    finally:
        server.stop()
    assert first["isError"]
    assert first["content"][0]["text"] == "KeyError: '***'"
    assert second["isError"]
    assert second["content"][0]["text"] == "user bob gave '***' and ***"
    assert JOB_VALUE not in str(answer), answer
    assert "token *** refused for bands" in str(answer), answer
    logged = "\n".join(record.getMessage() + str(record.exc_info or "") for record in caplog.records)
    assert "login" in logged
    assert "Traceback" in logged
    assert VALUE not in logged
    assert JOB_VALUE not in logged
    stored = sorted(path.name for path in tmp_path.iterdir())
    assert any(name.startswith("provenance") for name in stored)
    assert any(name.startswith("jobs") for name in stored)
    assert files_holding(tmp_path, VALUE) == []
    assert files_holding(tmp_path, JOB_VALUE) == []


def test_a_short_secret_quoted_alone_is_masked(tmp_path: Path) -> None:
    server = MCPServer("short-secret", state_dir=str(tmp_path))

    @server.tool()
    def pin(code: Secret) -> str:
        """Check a PIN."""
        raise KeyError(code)

    server.start(port=0)
    try:
        answer = server.call("pin", {"code": "7"})
    finally:
        server.stop()
    assert answer["content"][0]["text"] == "KeyError: '***'"
