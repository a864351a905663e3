"""scripts/demo --help prints its own usage and exits 0 before anything is installed or started
(scripts/setup --help too); the demo serves on --port N, else $MCP_PORT, else a free port.

Each run is in a temporary copy of the scripts and the calculator example, so the checkout's .venv is
never touched: for --help no .venv may appear; for the port, .venv/bin/python is a wrapper around the
test's own interpreter and the setup stamp says it is up to date, so scripts/setup installs nothing."""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from example_process import ROOT


def copy_of_the_checkout(into: Path) -> Path:
    shutil.copytree(ROOT / "scripts", into / "scripts")
    shutil.copytree(ROOT / "examples" / "simple", into / "examples" / "simple",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", into / "pyproject.toml")
    return into


def run(script: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k not in ("MCP_PORT", "MCP_TOKEN")}
    environment.update(env or {})
    return subprocess.run([str(script), *args], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL, env=environment)


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_demo_help_says_what_it_does_and_installs_nothing(tmp_path: Path, flag: str) -> None:
    checkout = copy_of_the_checkout(tmp_path)
    # Were setup run, it would stop at once on this interpreter (not create .venv, not install for minutes).
    done = run(checkout / "scripts" / "demo", flag, "--tool", "add", env={"PYTHON": str(tmp_path / "no-python")})
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: scripts/demo [--port N]"), done.stdout
    assert "$MCP_PORT" in done.stdout
    assert "scripts/demo_client.py" in done.stdout
    assert not (checkout / ".venv").exists()
    assert "\nsetup:" not in "\n" + done.stdout + done.stderr  # setup said nothing: it never ran


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_setup_help_says_what_it_does_and_installs_nothing(tmp_path: Path, flag: str) -> None:
    checkout = copy_of_the_checkout(tmp_path)
    done = run(checkout / "scripts" / "setup", flag, env={"PYTHON": str(tmp_path / "no-python")})
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: scripts/setup"), done.stdout
    assert not (checkout / ".venv").exists()


def a_set_up_copy(into: Path) -> Path:
    """A copy whose .venv runs this interpreter (with this checkout's package) and is stamped up to date."""
    checkout = copy_of_the_checkout(into)
    bin_ = checkout / ".venv" / "bin"
    bin_.mkdir(parents=True)
    wrapper = bin_ / "python"
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH="{ROOT}" exec "{sys.executable}" "$@"\n')
    wrapper.chmod(0o755)
    digest = hashlib.sha256()  # as scripts/setup computes what the environment was built from
    for name in ("pyproject.toml", "scripts/test-requirements.txt", "scripts/setup"):
        digest.update(name.encode() + b"\0")
        if (checkout / name).exists():
            digest.update((checkout / name).read_bytes())
    (checkout / ".venv" / ".nanohubmcp-setup").write_text(digest.hexdigest() + "\n")
    return checkout


def a_free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize("how", ["MCP_PORT", "--port", "--port=", "--port beats MCP_PORT"])
def test_the_demo_serves_on_the_port_chosen(tmp_path: Path, how: str) -> None:
    checkout = a_set_up_copy(tmp_path)
    port = a_free_port()
    args: list[str] = []
    env: dict[str, str] = {}
    if how == "MCP_PORT":
        env["MCP_PORT"] = str(port)
    elif how == "--port":
        args = ["--port", str(port)]
    elif how == "--port=":
        args = [f"--port={port}"]
    else:
        env["MCP_PORT"] = "not-used"  # --port wins, so a malformed MCP_PORT does not matter
        args = ["--port", str(port)]
    done = run(checkout / "scripts" / "demo", *args, "--tool", "add", "--arguments", '{"a": 2, "b": 3}', env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"listening on 127.0.0.1:{port}" in done.stdout, done.stdout
    assert f"connect to http://127.0.0.1:{port}/mcp" in done.stdout, done.stdout
    assert "done: every step succeeded" in done.stdout
    assert "\nsetup:" not in "\n" + done.stdout  # nothing was installed


def test_a_port_that_is_no_number_is_refused_in_one_line(tmp_path: Path) -> None:
    checkout = copy_of_the_checkout(tmp_path)
    done = run(checkout / "scripts" / "demo", "--port", "70000", env={"PYTHON": str(tmp_path / "no-python")})
    assert done.returncode == 2
    assert done.stderr == "scripts/demo: port '70000' (from --port or $MCP_PORT) is not a number 0-65535\n"
    assert not (checkout / ".venv").exists()
