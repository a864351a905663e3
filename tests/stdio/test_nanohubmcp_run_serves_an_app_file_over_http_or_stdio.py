"""``nanohubmcp run APP`` loads the file's module-level ``server`` and serves it: over HTTP by
default (``--host``/``--port``/``--token`` like ``start_mcp --app``), over stdio with ``--transport stdio`` or
``MCP_TRANSPORT=stdio``; a file without ``server`` and an unknown transport are one-line errors."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from stdio_support import EXAMPLES, ROOT

BANNER = re.compile(r"listening on [^\s:]+:(\d+)")


@pytest.mark.parametrize("token", [None, "run-token-0123456789"])
def test_http_by_default_with_host_port_and_token(token: str | None) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("MCP_PORT", "MCP_TRANSPORT", "MCP_TOKEN")}
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "out.txt"
        with log.open("wb") as sink:
            proc = subprocess.Popen(
                [
                    sys.executable,
                    "-u",
                    "-m",
                    "nanohubmcp",
                    "run",
                    str(EXAMPLES / "simple" / "start_mcp.py"),
                    "--host",
                    "127.0.0.1",
                    "--port",
                    "0",
                    *(["--token", token] if token else []),
                ],
                stdout=sink,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
                cwd=ROOT,
            )
        try:
            deadline = time.monotonic() + 60
            while not (match := BANNER.search(log.read_text())):
                assert proc.poll() is None, log.read_text()
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.05)
            url = f"http://127.0.0.1:{match[1]}/tools/add"
            headers = {"Content-Type": "application/json"}
            if token:
                with pytest.raises(urllib.error.HTTPError) as refused:
                    urllib.request.urlopen(urllib.request.Request(url, b"{}", headers, method="POST"), timeout=10)
                assert refused.value.code == 401
                headers["Authorization"] = f"Bearer {token}"
            request = urllib.request.Request(url, data=b'{"a": 2, "b": 3}', headers=headers, method="POST")
            with urllib.request.urlopen(request, timeout=10) as response:
                assert json.loads(response.read()) == {"result": "5.0"}
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(20)


@pytest.mark.anyio
@pytest.mark.timeout(60)
async def test_mcp_transport_stdio_selects_stdio() -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "nanohubmcp", "run", str(EXAMPLES / "simple" / "start_mcp.py")],
        env={**os.environ, "MCP_TRANSPORT": "stdio"},
        cwd=str(ROOT),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        assert (await session.call_tool("add", {"a": 2, "b": 3})).content[0].text == "5.0"


def test_a_file_without_server_and_an_unknown_transport_are_one_line_errors(tmp_path: Path) -> None:
    app = tmp_path / "nothing.py"
    app.write_text("x = 1\n")
    done = subprocess.run(
        [sys.executable, "-m", "nanohubmcp", "run", str(app)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 1
    assert "defines no module-level `server`" in done.stderr
    assert "Traceback" not in done.stderr
    env = {**os.environ, "MCP_TRANSPORT": "carrier-pigeon"}
    done = subprocess.run(
        [sys.executable, "-m", "nanohubmcp", "run", str(app)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
    )
    assert done.returncode == 1
    assert "transport must be one of http, stdio" in done.stderr


def test_the_help_names_the_loopback_default_the_server_binds() -> None:
    help_text = subprocess.run(
        [sys.executable, "-m", "nanohubmcp", "run", "--help"], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    assert "default 127.0.0.1" in " ".join(help_text.split())
    assert "0.0.0.0" not in help_text


@pytest.mark.anyio
@pytest.mark.timeout(60)
async def test_state_dir_says_where_the_records_are_kept(tmp_path: Path) -> None:
    """``--state-dir DIR``: the served app keeps its provenance records (and jobs, cache) in DIR, where
    ``nanohubmcp provenance export --state-dir DIR`` looks. Found by a fresh-user trial: ``run`` had
    no such option (only the environment variable), while ``provenance`` had."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    state = tmp_path / "state"
    env = {k: v for k, v in os.environ.items() if k != "NANOHUBMCP_STATE_DIR"}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "nanohubmcp", "run", str(EXAMPLES / "simple" / "start_mcp.py"), "--transport", "stdio",
              "--state-dir", str(state)],
        env=env,
        cwd=str(ROOT),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool("add", {"a": 2, "b": 3})
    uri = (result.meta or {})["io.nanohub/provenance"]
    done = subprocess.run(
        [sys.executable, "-m", "nanohubmcp", "provenance", "export", uri, "--state-dir", str(state),
         "-o", str(tmp_path / "crate")],
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert done.returncode == 0, done.stderr
