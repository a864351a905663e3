"""``nanohubmcp hub-tools`` without a NAME lists the installed tools and serves nothing: a serving option given
with it (``--port 5 --workers 3``, ``--async``, a token) would do nothing, so it is a usage error (exit status 2,
the command's usage), as argparse refuses an option it does not know, before a token file is read. It listed the
tools, ignoring them. An environment variable's value (``$MCP_PORT``) is no option given: the listing runs."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from nanohubmcp.cli import main
from nanohubmcp.cli.parser import build_parser

ROOT = Path(__file__).resolve().parents[2]


def hub_tools_parser() -> argparse.ArgumentParser:
    found = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return found.choices["hub-tools"]


def refusal(named: str) -> str:
    return (f"nanohubmcp hub-tools: error: serving options need a NAME to serve: without one, hub-tools only lists "
            f"the tools and {named} would do nothing; name the tools to serve (hub-tools NAME...), or leave {named} "
            "out\n")


@pytest.mark.parametrize(("given", "named"), [
    (["--port", "5", "--workers", "3"], "--port, --workers"),
    (["--async"], "--async"),
    (["--transport", "stdio"], "--transport"),
    (["--state-url", "redis://127.0.0.1:1/0", "--access-log"], "--state-url, --access-log"),
    (["--cell-timeout", "5", "--max-request-bytes", "4096"], "--cell-timeout, --max-request-bytes"),
    (["--token-file", "no-such-file"], "--token-file"),  # refused, not read (exit 1, "cannot be read")
    (["--token", "secret"], "--token"),  # refused, not warned about, its value not shown
], ids=["port-workers", "async", "transport", "state", "limits", "token-file", "token"])
def test_a_serving_option_without_a_name_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          given: list[str], named: str) -> None:
    with pytest.raises(SystemExit) as refused:
        main(["hub-tools", "--root", str(tmp_path), *given])
    assert refused.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("usage: nanohubmcp hub-tools "), err
    assert err.endswith(refusal(named)), err
    assert "secret" not in err
    assert "warning" not in err


def test_each_option_the_listing_ignores_is_named_as_it_is_written() -> None:
    from nanohubmcp.cli.parser import LISTING_READS, _option_of

    for action in hub_tools_parser()._actions:
        if action.option_strings and action.dest not in LISTING_READS | {"help"}:
            assert _option_of(action.dest) in action.option_strings, action.dest


def test_the_listing_takes_its_root_and_the_environments_serving_variables(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "nanohubmcp", "hub-tools", "--root", str(tmp_path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, check=False,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "MCP_PORT": "8123",
                               "MCP_TRANSPORT": "stdio", "MCP_TOKEN": "abc", "MCP_PUBLIC_URL": "https://h.example/"})
    assert done.returncode == 0, done.stderr
    assert done.stderr == f"No Rappture tool or Sim2L is installed under {tmp_path}.\n"


def test_with_a_name_the_serving_options_are_taken(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as refused:  # checked as run checks them: the NAME serves
        main(["hub-tools", "fermi", "--root", str(tmp_path), "--port", "5", "--workers", "0"])
    assert refused.value.code == 2
    assert "argument --workers: must be a number of processes" in capsys.readouterr().err


@pytest.mark.parametrize("environ", [{"MCP_PORT": "abc"}, {"MCP_PUBLIC_URL": "notaurl"},
                                     {"MCP_PATH_PREFIX": "a?b"}, {"MCP_ALLOWED_ORIGINS": "not an origin"}],
                         ids=["port", "public-url", "path-prefix", "origins"])
def test_the_listing_reads_no_serving_variable_even_a_malformed_one(tmp_path: Path, environ: dict[str, str]) -> None:
    """Review r27 #2: a malformed ``$MCP_PORT`` (meant for another program of the hub session) refused the listing,
    exit 2, though the listing never reads it; the form that serves still refuses it, before any tool is read."""
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), **environ}
    listing = subprocess.run([sys.executable, "-m", "nanohubmcp", "hub-tools", "--root", str(tmp_path)], cwd=ROOT,
                             capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, check=False, env=env)
    assert listing.returncode == 0, listing.stderr
    assert listing.stderr == f"No Rappture tool or Sim2L is installed under {tmp_path}.\n"
    serving = subprocess.run([sys.executable, "-m", "nanohubmcp", "hub-tools", "fermi", "--root", str(tmp_path)],
                             cwd=ROOT, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                             check=False, env=env)
    assert serving.returncode == 2, serving.stderr
    variable = next(iter(environ))
    assert f"nanohubmcp hub-tools: error: argument --{variable[4:].lower().replace('_', '-')}: ${variable}" \
        in serving.stderr, serving.stderr
    assert "fermi" not in serving.stderr  # (refused before any tool is looked for)


def test_the_serving_form_reads_a_good_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from nanohubmcp.cli.parser import parse_arguments

    monkeypatch.setenv("MCP_PORT", "8123")
    assert parse_arguments(["hub-tools", "fermi", "--root", str(tmp_path)]).port == 8123
    assert parse_arguments(["hub-tools", "fermi", "--port", "7", "--root", str(tmp_path)]).port == 7
    assert parse_arguments(["hub-tools", "--root", str(tmp_path)]).port is None  # (the listing: not read)
