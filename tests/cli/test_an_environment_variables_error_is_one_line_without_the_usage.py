"""A command refusing an environment variable's value (``NANOHUBMCP_REGISTRY_NAME``, ``NANOHUBMCP_STATE_URL``)
says it in one line, ``nanohubmcp run: error: $VARIABLE...``, exit status 2, without the usage: the command
line is not what is wrong. A mistake in the arguments (``--token ""``, serving options without a NAME) is still
answered with the usage first, as argparse answers its own. Real ``nanohubmcp`` processes.

Found by a fresh-user trial (trial71 T71-7): the registry name's error, documented as one line, came after the
11-line usage block.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

APP = "from nanohubmcp import MCPServer\nserver = MCPServer('weather')\n"

pytestmark = pytest.mark.timeout(120)


def _command(tmp_path: Path, *arguments: str, **environment: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "weather.py").write_text(APP)
    (tmp_path / "apps").mkdir(exist_ok=True)
    try:
        return subprocess.run([sys.executable, "-m", "nanohubmcp", *arguments], capture_output=True, text=True,
                              timeout=60, cwd=tmp_path, stdin=subprocess.DEVNULL, env={**os.environ, **environment})
    except subprocess.TimeoutExpired as served:
        pytest.fail(f"the command served: {served.stderr!r}")


@pytest.mark.parametrize(("variable", "value", "said"), [
    ("NANOHUBMCP_REGISTRY_NAME", "bad", "$NANOHUBMCP_REGISTRY_NAME='bad': the registry name must be reverse-DNS"),
    ("NANOHUBMCP_STATE_URL", "foo://", "$NANOHUBMCP_STATE_URL: state_url 'foo://': unknown scheme 'foo'"),
])
def test_a_bad_variable_is_one_line_and_exit_status_2(tmp_path: Path, variable: str, value: str, said: str) -> None:
    done = _command(tmp_path, "run", "weather.py", "--port", "0", **{variable: value})
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert done.stderr.startswith(f"nanohubmcp run: error: {said}"), done.stderr


@pytest.mark.parametrize("arguments", [
    ("run", "weather.py", "--port", "0", "--token", ""),
    ("hub-tools", "--root", "apps", "--port", "0"),
], ids=["empty-token", "hub-tools-without-a-name"])
def test_a_bad_argument_still_shows_the_usage(tmp_path: Path, arguments: tuple[str, ...]) -> None:
    done = _command(tmp_path, *arguments)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"usage: nanohubmcp {arguments[0]} "), done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith(f"nanohubmcp {arguments[0]}: error: "), done.stderr
