"""A ``NANOHUBMCP_TRACING`` that is none of its words stops a script at ``MCPServer(...)`` in one line,
``Error: NANOHUBMCP_TRACING must be one of ...``, exit status 2, as ``nanohubmcp run`` says it
(``nanohubmcp run: error: ...``, exit status 2); the words the error lists are the ones the tracing page
lists, from one source. Code that catches the ``ConfigurationError`` still gets it. Real processes.

Found by a fresh-user trial (trial71 T71-6): from a script, a 15-line traceback; the error listed
``true, false or 'auto'`` where the page accepted ``1/true/on, 0/false/off, auto`` (and the code ``yes``/``no`` too).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import ConfigurationError
from nanohubmcp.server.wire.trace_context import ACCEPTED, OFF_WORDS, ON_WORDS

ROOT = Path(__file__).resolve().parents[2]
MESSAGE = f"NANOHUBMCP_TRACING must be one of {ACCEPTED}, not 'sometimes'"
SCRIPT = """
from nanohubmcp import MCPServer
server = MCPServer("traced")

@server.tool()
def add(a: int, b: int) -> int:
    '''a plus b.'''
    return a + b

if __name__ == "__main__":
    server.run(port=0)
"""


def _run(*command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "NANOHUBMCP_TRACING": "sometimes"}
    try:
        return subprocess.run([sys.executable, *command], capture_output=True, text=True, timeout=60, cwd=cwd,
                              stdin=subprocess.DEVNULL, env=environment)
    except subprocess.TimeoutExpired as served:
        pytest.fail(f"the server started with a bad NANOHUBMCP_TRACING: {served.stderr!r}")


@pytest.mark.timeout(120)
def test_a_script_and_the_command_say_it_in_one_line_with_exit_status_2(tmp_path: Path) -> None:
    (tmp_path / "traced.py").write_text(SCRIPT)
    done = _run("traced.py", cwd=tmp_path)
    assert (done.returncode, done.stderr.strip()) == (2, f"Error: {MESSAGE}"), done.stderr
    done = _run("-m", "nanohubmcp", "run", "traced.py", "--port", "0", cwd=tmp_path)
    assert (done.returncode, done.stderr.strip()) == (2, f"nanohubmcp run: error: {MESSAGE}"), done.stderr


def test_code_that_catches_it_gets_the_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NANOHUBMCP_TRACING", "sometimes")
    with pytest.raises(ConfigurationError) as caught:
        MCPServer("traced")
    assert (str(caught.value), caught.value.variable) == (MESSAGE, "NANOHUBMCP_TRACING")
    monkeypatch.delenv("NANOHUBMCP_TRACING")
    with pytest.raises(ConfigurationError) as caught:
        MCPServer("traced", tracing="sometimes")  # an argument: the code's own line, no variable
    assert caught.value.variable is None


def test_the_tracing_page_lists_the_words_the_error_lists() -> None:
    page = (ROOT / "docs" / "how-to" / "tracing.md").read_text()
    said = re.search(r"the `NANOHUBMCP_TRACING` environment variable decides \(([^)]*)\)", page.replace("\n", " "))
    assert said is not None, "the tracing page no longer says which words NANOHUBMCP_TRACING takes"
    words = re.findall(r"`([^`]+)`", said.group(1))
    assert words == [*ON_WORDS, *OFF_WORDS, "auto"], said.group(1)
