"""A token refused at start says where it came from — ``--token-file PATH``, ``--token``, the ``MCP_TOKEN``
environment variable, the ``c.NanohubMCP.token`` setting — and which character, at which position, no
client can send, never the token itself. A bad token read from ``--token-file`` was refused as "a bearer
token may hold only ...", and by ``start_mcp`` as "MCP_TOKEN: ...", so the user looked for ``MCP_TOKEN``
or ``--token`` instead of the file (fresh-user trial, low finding).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(180)

ROOT = Path(__file__).resolve().parents[2]
RULE = ("a bearer token may hold only visible ASCII characters (letters, digits, punctuation; no spaces), what a "
        "client sends in 'Authorization: Bearer <token>' (RFC 6750 § 2.1)")
APP = """
from nanohubmcp import MCPServer

server = MCPServer("calculator")

@server.tool()
def add(a: int, b: int) -> int:
    "Add two integers."
    return a + b
"""
COMMANDS = {
    "nanohubmcp run": (["-m", "nanohubmcp", "run", "app.py", "--port", "0"], "nanohubmcp run: error: ", 1),
    "start_mcp": (["-m", "nanohubmcp.nanohub.launcher", "--app", "app.py", "--port", "0"], "start_mcp: error: ", 2),
}
# (what the file holds, what the refusal says after its source, pieces of the token it must not show)
BAD_TOKENS = [
    ("Sekret tail9\n", f"contains a space at position 7; {RULE}", ("Sekret", "tail9")),
    ("Sekrét9\n", f"contains 'é' (U+00E9, not ASCII: no HTTP client can send it) at position 5; {RULE}", ("Sekr",)),
    ("Sekret\ntail9\n", f"contains a line break at position 7; {RULE}", ("Sekret", "tail9")),
]


def run(command: str, *options: str, cwd: Path, token: str | None = None) -> tuple[str, int]:
    argv, _, _ = COMMANDS[command]
    env = {k: v for k, v in os.environ.items() if k != "MCP_TOKEN"}
    env["PYTHONPATH"] = str(ROOT)
    if token is not None:
        env["MCP_TOKEN"] = token
    done = subprocess.run([sys.executable, "-W", "ignore", *argv, *options], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL, check=False)
    assert "Traceback" not in done.stderr, done.stderr
    assert "listening" not in done.stdout + done.stderr
    return done.stderr, done.returncode


@pytest.fixture
def app_dir(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text(APP)
    return tmp_path


def token_file(folder: Path, text: str) -> Path:
    path = folder / "mcp-token"
    path.write_text(text)
    path.chmod(0o600)
    return path


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(("held", "said", "hidden"), BAD_TOKENS)
def test_a_token_from_a_file_is_refused_naming_the_file(
    app_dir: Path, command: str, held: str, said: str, hidden: tuple[str, ...]
) -> None:
    path = token_file(app_dir, held)
    stderr, status = run(command, "--token-file", str(path), cwd=app_dir)
    _, prefix, refused = COMMANDS[command]
    assert status == refused, stderr
    assert f"{prefix}the token in --token-file {path} {said}" in stderr
    assert "MCP_TOKEN" not in stderr
    assert not [piece for piece in hidden if piece in stderr], stderr


@pytest.mark.parametrize("command", COMMANDS)
def test_an_empty_token_file_is_refused_naming_the_file(app_dir: Path, command: str) -> None:
    path = token_file(app_dir, " \n\n")
    stderr, status = run(command, "--token-file", str(path), cwd=app_dir)
    _, prefix, refused = COMMANDS[command]
    assert status == refused, stderr
    assert f"{prefix}--token-file {path} is empty: write the token into it (one line)" in stderr
    assert "MCP_TOKEN" not in stderr


@pytest.mark.parametrize("command", COMMANDS)
def test_a_token_given_as_the_option_is_refused_naming_the_option(app_dir: Path, command: str) -> None:
    stderr, status = run(command, "--token", "Sekret tail9", cwd=app_dir)
    _, prefix, refused = COMMANDS[command]
    assert status == refused, stderr
    assert f"{prefix}the token given as --token contains a space at position 7; {RULE}" in stderr
    assert "MCP_TOKEN" not in stderr.replace("set MCP_TOKEN in the environment", "")  # the --token warning may say it
    assert "Sekret" not in stderr


@pytest.mark.parametrize("command", COMMANDS)
def test_a_token_in_the_environment_is_refused_naming_the_variable(app_dir: Path, command: str) -> None:
    stderr, status = run(command, cwd=app_dir, token="Sekret tail9")
    _, prefix, refused = COMMANDS[command]
    assert status == refused, stderr
    assert f"{prefix}the token in the MCP_TOKEN environment variable contains a space at position 7; {RULE}" in stderr
    assert "Sekret" not in stderr


def test_a_token_in_the_notebook_setting_is_refused_naming_the_setting(tmp_path: Path) -> None:
    """``c.NanohubMCP.token`` in a profile's ``ipython_config.py``: ``%load_ext nanohubmcp`` says it in one line
    (it was a 130-line traceback)."""
    profile = tmp_path / "profile_default"
    profile.mkdir()
    (profile / "ipython_config.py").write_text("c.NanohubMCP.token = 'Sekret tail9'\n")
    env = dict(os.environ, IPYTHONDIR=str(tmp_path), PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-m", "IPython", "--no-banner", "--colors=NoColor", "-c",
                           "%load_ext nanohubmcp"], env=env, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL, check=False)
    assert done.stdout.strip() + done.stderr.strip() == (
        f"UsageError: the token in the c.NanohubMCP.token setting contains a space at position 7; {RULE}: choose "
        'another token, e.g. the output of python -c "import secrets; print(secrets.token_urlsafe(32))"; '
        "nanohubmcp is not loaded: fix the setting"
    )
