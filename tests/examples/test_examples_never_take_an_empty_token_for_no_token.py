"""The examples' "require a token" command fails closed (trial21 F1, MED): ``--token "$MCP_TOKEN"`` with
``MCP_TOKEN`` unset gave ``--token ""``, which each example's own parser passed on as ``server.run(token="")``
— authorization off, on 0.0.0.0, with only a warning. An empty ``--token`` is now a usage error of each
example (exit 2, one line, nothing served), as of every ``nanohubmcp`` command; the docstrings give
``--token-file PATH`` (the documented way, not the command line), which refuses a file others may read or
an empty one (exit 1), and serves with that token otherwise."""

from __future__ import annotations

import ast
import json
import os
import secrets
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from example_process import EXAMPLES, run_example

NAMES = ["simple", "data_analysis", "simulator", "apps"]
EMPTY = ("start_mcp.py: error: --token is empty; give the token (in $MCP_TOKEN or --token-file PATH rather than on "
         "the command line), or leave --token out for no token")


def start(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("MCP_PORT", "MCP_TOKEN")}
    return subprocess.run([sys.executable, str(EXAMPLES / name / "start_mcp.py"), "--port", "0", *args], env=env,
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, check=False)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("value", ["", "  "])
def test_an_empty_token_option_exits_2_without_serving(name: str, value: str) -> None:
    done = start(name, "--host", "0.0.0.0", "--token", value)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith("usage: start_mcp.py "), done.stderr
    assert done.stderr.strip().splitlines()[-1] == EMPTY
    assert "listening" not in done.stdout + done.stderr
    assert "visible to other users" not in done.stderr  # refused before the command-line warning
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("name", NAMES)
def test_a_token_file_others_may_read_or_an_empty_one_exits_1(name: str, tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.write_text("a-token\n")
    shared.chmod(0o644)
    empty = tmp_path / "empty"
    empty.write_text("\n")
    empty.chmod(0o600)
    for path, reason in ((shared, "is readable by other users (mode 0644)"),
                         (empty, "is empty: write the token into it (one line)")):
        done = start(name, "--host", "0.0.0.0", "--token-file", str(path))
        assert done.returncode == 1, done.stdout + done.stderr
        assert done.stderr.strip().splitlines() == [f"start_mcp.py: error: --token-file {path} {reason}"
                                                   + ("; make it private first: chmod 600 " + str(path)
                                                      if path == shared else "")]
        assert "listening" not in done.stdout


@pytest.mark.parametrize("name", NAMES)
def test_the_docstring_command_requires_the_token_in_its_file(name: str, tmp_path: Path) -> None:
    doc = ast.get_docstring(ast.parse((EXAMPLES / name / "start_mcp.py").read_text())) or ""
    assert '--token "' not in doc
    assert "--token $" not in doc
    command = next(line for line in doc.splitlines() if "--token-file ~/.mcp-token" in line)
    assert command.strip().startswith(f"python examples/{name}/start_mcp.py")
    token = "ex-" + secrets.token_hex(8)
    kept = tmp_path / "token"
    kept.write_text(token + "\n")
    kept.chmod(0o600)
    with run_example(name, "--token-file", str(kept), env={"MCP_TOKEN": ""}) as example:
        assert "no authorization" not in example.output
        assert token not in example.output
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(example.url, timeout=30)
        assert refused.value.code == 401
        request = urllib.request.Request(example.url, headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(request, timeout=30) as response:
            assert json.loads(response.read())["status"] == "running"
