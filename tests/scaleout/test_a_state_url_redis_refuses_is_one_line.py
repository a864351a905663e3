"""A state URL a real Redis (or redis-py) refuses as written ends ``nanohubmcp run`` with one line
naming the reason and no traceback (a security trial found ``?foo=bar`` and ``/99`` ending in
redis-py's traceback). The URL is shown without a password, as in every state-URL message."""

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
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"nanohubmcp run: error: state_url {url} was refused"), done.stderr
    assert f"was refused: {reason}" in last
    assert "Traceback" not in done.stderr
