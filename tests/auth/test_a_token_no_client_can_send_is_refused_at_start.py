"""A static token that no HTTP client can send — ``MCP_TOKEN="tök€n"`` — is refused at start, as a blank
one and one with a control character are, saying which characters a bearer token may hold (RFC 6750
§ 2.1, ``b64token``), on every way a server gets its token; the server used to start and answer every
request 401 (fresh-user trial 26, F5). A script run as ``python start_mcp.py`` with such a token prints
one line and exits 2, not a traceback (F6).
"""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from nanohubmcp import MCPServer, StaticTokenVerifier
from nanohubmcp.errors import ConfigurationError

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[2]
ALLOWED = "visible ASCII characters (letters, digits, punctuation; no spaces)"
README_SCRIPT = """
from nanohubmcp import MCPServer

server = MCPServer("calculator")

@server.tool()
def add(a: int, b: int) -> int:
    "Add two integers."
    return a + b

if __name__ == "__main__":
    server.run(port=0)
"""
EXPORTED_STYLE_SCRIPT = """
import argparse

from nanohubmcp import MCPServer
from nanohubmcp.cli import add_port_option, add_script_token_options, required_token

server = MCPServer("calculator")

if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="start_mcp.py")
    add_port_option(parser)
    add_script_token_options(parser)
    args = parser.parse_args()
    server.run(port=args.port, token=required_token(parser, args.token))
"""


def run_python(*args: str, cwd: Path, token: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "MCP_TOKEN"}
    env["PYTHONPATH"] = str(ROOT)
    if token is not None:
        env["MCP_TOKEN"] = token
    return subprocess.run([sys.executable, "-W", "ignore", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=90, stdin=subprocess.DEVNULL, check=False)


@pytest.mark.parametrize("token", ["tök€n", "my secret", "na\u00efve"])
def test_a_token_no_client_can_send_is_a_configuration_error_naming_the_characters(token: str) -> None:
    with pytest.raises(ConfigurationError, match="RFC 6750") as caught:
        MCPServer("bad-token").start(host="127.0.0.1", port=0, token=token, quiet=True)
    assert ALLOWED in str(caught.value)
    assert token not in str(caught.value)


def test_the_non_ascii_token_says_no_client_can_send_it() -> None:
    with pytest.raises(ConfigurationError) as caught:
        StaticTokenVerifier("tök€n")
    assert ("contains 'ö' (U+00F6, not ASCII: no HTTP client can send it) at position 2 (and 1 more such "
            "character)") in str(caught.value)


def test_auth_as_a_string_and_mcp_token_are_checked_the_same_way(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigurationError, match=r"^the token given as auth= contains 'ö'.*may hold only"):
        MCPServer("bad-auth", auth="tök€n").start(host="127.0.0.1", port=0, quiet=True)
    monkeypatch.setenv("MCP_TOKEN", "tök€n")
    with pytest.raises(ConfigurationError, match=r"^the token in the MCP_TOKEN environment variable contains 'ö'"):
        MCPServer("bad-env").start(host="127.0.0.1", port=0, quiet=True)


@pytest.mark.parametrize("token", ["Ab0-._~+/xyz==", 'my$ecret!"a=b",;'])
def test_every_b64token_character_and_other_visible_ascii_still_works(token: str) -> None:
    server = MCPServer("good-token")
    server.start(host="127.0.0.1", port=0, token=token, quiet=True)
    try:
        request = urllib.request.Request(f"{server.url}", headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 200
        wrong = urllib.request.Request(f"{server.url}", headers={"Authorization": f"Bearer {token[:-1]}"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(wrong, timeout=10)
        assert refused.value.code == 401
    finally:
        server.stop()


@pytest.mark.parametrize(
    ("token", "said"),
    [
        (" ", "Error: the token in the MCP_TOKEN environment variable is blank (only spaces or line breaks): give a "
              "token of visible characters"),
        ("abc\x01", "Error: the token in the MCP_TOKEN environment variable contains a control character (U+0001) at "
                    f"position 4; a bearer token may hold only {ALLOWED}"),
        ("tök€n", "Error: the token in the MCP_TOKEN environment variable contains 'ö' (U+00F6, not ASCII: no HTTP "
                  "client can send it) at position 2 (and 1 more such character); a bearer token may hold only "
                  f"{ALLOWED}"),
    ],
)
def test_the_readme_script_prints_one_line_and_exits_2(tmp_path: Path, token: str, said: str) -> None:
    (tmp_path / "start_mcp.py").write_text(README_SCRIPT)
    done = run_python("start_mcp.py", cwd=tmp_path, token=token)
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert done.stderr.startswith(said)
    assert "listening" not in done.stdout


def test_code_that_catches_the_refusal_gets_the_configuration_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_TOKEN", "tök€n")
    before = sys.excepthook
    with pytest.raises(ConfigurationError, match="may hold only"):
        MCPServer("caught").run(host="127.0.0.1", port=0, quiet=True)
    sys.excepthook = before  # what the uncaught case would print is the test above's business


def test_an_exported_style_script_refuses_the_token_in_one_line_with_status_2(tmp_path: Path) -> None:
    (tmp_path / "start_mcp.py").write_text(EXPORTED_STYLE_SCRIPT)
    done = run_python("start_mcp.py", "--port", "0", cwd=tmp_path, token="tök€n")
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [done.stderr.strip()]
    assert done.stderr.startswith("start_mcp.py: error: the token in the MCP_TOKEN environment variable contains 'ö'")
    done = run_python("start_mcp.py", "--port", "0", "--token", "tök€n", cwd=tmp_path, token=None)
    assert done.returncode == 2, done.stderr
    assert "start_mcp.py: error: the token given as --token contains 'ö' (U+00F6, " in done.stderr
    assert "visible to other users" not in done.stderr
    token_file = tmp_path / "token.txt"
    token_file.write_text("tök€n\n")
    token_file.chmod(0o600)
    done = run_python("start_mcp.py", "--port", "0", "--token-file", str(token_file), cwd=tmp_path, token=None)
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith(f"start_mcp.py: error: the token in --token-file {token_file} contains 'ö'")
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("command", "prefix", "status"),
    [
        (["-m", "nanohubmcp", "run", "start_mcp.py", "--port", "0"], "nanohubmcp run: error: ", 1),
        (["-m", "nanohubmcp.nanohub.launcher", "--app", "start_mcp.py", "--port", "0"], "start_mcp: error: ", 2),
    ],
)
def test_the_commands_refuse_it_in_one_line(tmp_path: Path, command: list[str], prefix: str, status: int) -> None:
    (tmp_path / "start_mcp.py").write_text(README_SCRIPT)
    done = run_python(*command, cwd=tmp_path, token="tök€n")
    assert done.returncode == status, done.stderr
    assert f"{prefix}the token in the MCP_TOKEN environment variable contains 'ö'" in done.stderr
    assert "Traceback" not in done.stderr
