"""Trial 66 F8: ``--state-url`` naming a Redis that is not running stopped the command with ``cannot reach the
state store redis://127.0.0.1:6399/0: ConnectionError`` and no more. The line now gives redis-py's reason
(``Error 111 connecting to 127.0.0.1:6399. Connection refused.``) and asks whether redis-server runs at that host
and port; the password in the URL is never shown.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from redis_server import free_port

APP = '''
from nanohubmcp import MCPServer

server = MCPServer("unreached")


@server.tool()
def add(a: float, b: float) -> float:
    """Add."""
    return a + b
'''


def test_a_state_store_nobody_serves_is_refused_with_the_reason_and_where_to_look(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(APP)
    port = free_port()  # nothing listens there
    env = {**os.environ, "NANOHUBMCP_STATE_DIR": str(tmp_path / "state"), "MCP_TOKEN": ""}
    done = subprocess.run(
        [sys.executable, "-m", "nanohubmcp", "run", "app.py", "--host", "127.0.0.1", "--port", "0",
         "--state-url", f"redis://:hunter2secret@127.0.0.1:{port}/0"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL, env=env, check=False,
    )  # fmt: skip
    text = done.stdout + done.stderr
    assert done.returncode == 1, text
    line = next(line for line in text.splitlines() if "cannot reach the state store" in line)
    assert f"127.0.0.1:{port}/0: ConnectionError: " in line, line  # before: the class name, nothing after it
    assert f"connecting to 127.0.0.1:{port}" in line, line  # redis-py's reason
    assert f"is redis-server running at 127.0.0.1:{port}" in line, line
    assert "hunter2secret" not in text, text


def test_an_ipv6_state_url_is_shown_with_its_brackets() -> None:
    # Review r39 R39-7: shown as redis://:***@::1:6390/0 (no URL), the hint repeated the whole URL for its host.
    from nanohubmcp.state.url import redact, store_unreachable

    shown = redact("redis://:sekret@[::1]:6390/0")
    assert shown == "redis://:***@[::1]:6390/0"
    said = str(store_unreachable(shown, ConnectionError("Error 111 connecting to ::1:6390. Connection refused.")))
    assert "(is redis-server running at [::1]:6390, and reachable from this machine?)" in said, said
    assert "sekret" not in said
