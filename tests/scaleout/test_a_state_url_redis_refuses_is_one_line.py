"""A state URL a real Redis (or redis-py) refuses as written ends ``nanohubmcp run`` with one line
naming the reason and no traceback (a security trial found ``?foo=bar`` and ``/99`` ending in
redis-py's traceback). The URL is shown without a password, as in every state-URL message. The one line
is the only one: trial16 F8 saw ``?foo=bar`` first log a failed heartbeat and "unreachable ...; answering
503 until it is back" (false: the server was about to exit)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from redis_server import RedisServer

APP = '''
from nanohubmcp import MCPServer

server = MCPServer("refused-url")


@server.tool()
def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b
'''


@pytest.mark.parametrize(
    ("suffix", "reason"),
    [
        ("/0?foo=bar", "TypeError: AbstractConnection.__init__() got an unexpected keyword argument 'foo'"),
        ("/99", "ResponseError: DB index is out of range"),
    ],
)
def test_a_refused_state_url_ends_run_in_one_line(
        redis_server: RedisServer, tmp_path: Path, suffix: str, reason: str) -> None:
    (tmp_path / "app.py").write_text(APP)
    url = f"redis://127.0.0.1:{redis_server.port}{suffix}"
    done = subprocess.run(
        [sys.executable, "-m", "nanohubmcp", "run", "app.py", "--port", "0", "--state-url", url],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    last = lines[-1]
    assert last.startswith(f"nanohubmcp run: error: state_url {url} was refused"), done.stderr
    assert f"was refused: {reason}" in last
    assert "Traceback" not in done.stderr
