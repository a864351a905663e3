"""scripts/demo_client.py (what ``scripts/demo`` runs) drives each example through every step
and exits 0; a step that fails makes it exit 1 with a one-line reason, not a traceback. A server
that requires a token is driven with ``$MCP_TOKEN`` or ``--token-file`` (the CLI's ways)."""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from example_process import ROOT, run_example

pytestmark = pytest.mark.slow

CLIENT = ROOT / "scripts" / "demo_client.py"
STEPS = ["1. initialize", "2. tools/list", "3. tools/call", "4. resources/list and resources/read",
         "5. resources/templates/list", "6. prompts/list and prompts/get", "done: every step succeeded"]


def demo(url: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "MCP_TOKEN"}
    environment.update(env or {})
    return subprocess.run([sys.executable, str(CLIENT), url, *args, "--timeout", "30"],
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, env=environment)


@pytest.mark.parametrize(("name", "tool", "arguments", "expected"), [
    ("simple", "add", {"a": 2, "b": 3}, '"text": "5.0"'),
    ("data_analysis", "correlation", {"x_data": "1,2,3", "y_data": "2,4,6"}, '"correlation": 1.0'),
    ("simulator", "projectile_motion", {"v0": 50, "angle": 45}, '"range": 254.842'),
])
def test_every_step_runs_against_each_example(name: str, tool: str, arguments: dict, expected: str) -> None:
    with run_example(name) as example:
        done = demo(example.url + "mcp", "--tool", tool, "--arguments", json.dumps(arguments))
    assert done.returncode == 0, done.stderr
    for step in STEPS:
        assert step in done.stdout, step
    assert expected in done.stdout
    assert "contents:" in done.stdout  # resources were read
    assert "(no MIME type)" not in done.stdout  # each resource is listed with its type (trial63 F7)


def test_a_base_url_gets_mcp_appended_and_server_logs_are_shown() -> None:
    with run_example("simple") as example:
        done = demo(example.url, "--tool", "power", "--arguments", '{"base": 2, "exponent": 3}')
    assert done.returncode == 0, done.stderr
    assert f"connect to {example.url}mcp" in done.stdout
    # The arguments may arrive as 2 or 2.0 (float parameters); either way the log line shows.
    assert re.search(r"\[server log, info\] Computing 2(\.0)?\^3(\.0)?\n", done.stdout), done.stdout


def test_a_failing_step_exits_1_with_the_reason() -> None:
    with run_example("simple") as example:
        missing = demo(example.url, "--tool", "no_such_tool")
        erring = demo(example.url, "--tool", "divide", "--arguments", '{"a": 1, "b": 0}')
    assert missing.returncode == 1
    assert "DEMO FAILED: the server has no tool named 'no_such_tool'" in missing.stderr
    assert erring.returncode == 1
    assert "Cannot divide by zero" in erring.stdout
    assert "DEMO FAILED: tool 'divide' reported an error" in erring.stderr
    assert "Traceback" not in missing.stderr + erring.stderr


def test_no_server_exits_1_without_a_traceback() -> None:
    done = demo("http://127.0.0.1:9/mcp")  # the discard port: nothing listens there
    assert done.returncode == 1
    assert done.stderr.strip().startswith("DEMO FAILED:")
    assert "Traceback" not in done.stderr


def test_a_server_with_a_token_is_driven_with_mcp_token_or_a_token_file(tmp_path: Path) -> None:
    """A fresh-user trial: the demo client had no way to send a token (401 whatever was set)."""
    token = "demo-" + secrets.token_hex(8)
    kept = tmp_path / "token"
    kept.write_text(token + "\n")
    kept.chmod(0o600)
    with run_example("simple", env={"MCP_TOKEN": token}) as example:
        without = demo(example.url)
        wrong = demo(example.url, env={"MCP_TOKEN": "not-" + token})
        from_environment = demo(example.url, env={"MCP_TOKEN": token})
        from_file = demo(example.url, "--token-file", str(kept))
    assert without.returncode == 1
    assert "DEMO FAILED" in without.stderr
    assert "Unauthorized" in without.stderr
    # says how this script takes a token (trial19 F16), and that a token sent was refused
    assert "set MCP_TOKEN or pass --token-file PATH" in without.stderr
    assert wrong.returncode == 1
    assert "the server refused the token sent" in wrong.stderr
    assert "set MCP_TOKEN" not in wrong.stderr
    for done in (from_environment, from_file):
        assert done.returncode == 0, done.stderr
        assert "with a bearer token" in done.stdout
        assert "done: every step succeeded" in done.stdout
        assert token not in done.stdout + done.stderr


@pytest.mark.parametrize("name", ["data_analysis", "simulator"])
def test_a_server_without_add_is_driven_without_flags(name: str) -> None:
    """A fresh-user trial (trial25 F11): "drives any other server" failed on every server without an
    ``add`` tool, and ``--tool NAME`` alone still sent add's ``{"a": 2, "b": 3}``. (simulator's ideal_gas, all
    arguments optional, answers an error to ``{}``: a failure since trial58 F5, saying what to pass.)"""
    with run_example(name) as example:
        done = demo(example.url)
    if done.returncode == 0:
        assert "done: every step succeeded" in done.stdout
        assert '"a": 2' not in done.stdout.split("3. tools/call", 1)[1].splitlines()[0]
    else:  # the tool picked answered an error to the arguments chosen (trial58 F5): the reason says what to pass
        assert "every step succeeded" not in done.stdout
        assert "arguments this script chose: pass --tool" in done.stderr, done.stderr
    assert "no tool named 'add'" not in done.stderr
    assert "Traceback" not in done.stderr
