"""Every ``nanohubmcp`` subcommand answers a malformed command line as argparse answers its own usage
errors: the usage line, one message, exit status 2 (trial9 D5: ``desktop-config --url ftp://...`` exited 1
while ``server-json --public-url ftp://...`` exited 2). A well-formed command that fails (a missing file)
still exits 1, with one line and no usage."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

APP = 'from nanohubmcp import MCPServer\nserver = MCPServer("app")\n'


def nanohubmcp(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "nanohubmcp", *arguments], cwd=cwd, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL, check=False)  # fmt: skip


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["desktop-config"], "give an app file (served over stdio) or --url URL (bridged)"),
        (["desktop-config", "app.py", "--url", "http://127.0.0.1:9/mcp"], "not both"),
        (["desktop-config", "--url", "ftp://host/mcp"], "--url must be an http:// or https:// URL with a host"),
        (["desktop-config", "--url", "http://127.0.0.1:9/mcp", "--env", "NOVALUE"], "--env takes NAME=VALUE"),
        (["bridge", "not a url"], "URL must be an http:// or https:// URL with a host"),
        (["bridge", "http://127.0.0.1:9/mcp", "--header", "no-colon"], "--header takes 'Name: value'"),
        (["bridge", "http://127.0.0.1:9/mcp", "--cookie", "no-equals"], "--cookie takes 'name=value'"),
        (["server-json", "app.py", "--public-url", "ftp://host/"], "is not an http:// or https:// URL with a host"),
        (["run", "app.py", "--state-url", "carrier://pigeon"], "--state-url: state_url 'carrier://pigeon'"),
        # found by a fresh-user trial: these were 50-75-line tracebacks, exit 1 (and a DB 'notadb' was DB 0)
        (["run", "app.py", "--state-url", "redis://:pw@127.0.0.1:notaport/0"], "the port is not a number in 0-65535"),
        (["run", "app.py", "--state-url", "redis://127.0.0.1:99999/0"], "the port is not a number in 0-65535"),
        (["run", "app.py", "--state-url", "redis://127.0.0.1:6379/notadb"], "the database 'notadb' is not a number"),
        # found by a security trial: urllib's ValueError for a malformed host was a traceback
        (["run", "app.py", "--state-url", "redis://:pw%ZZ@[::1:6379/0"], "is not a URL (Invalid IPv6 URL)"),
        (["rappture", "a.xml", "b.xml", "--name", "x"], "--name names one tool"),
        (["sim2l", "a.ipynb", "b.ipynb", "--name", "x"], "--name names one tool"),
        (["run"], "the following arguments are required: APP"),  # argparse's own, for comparison
        # found by a fresh-user trial: these were exit 1, some after the app was imported
        (["run", "app.py", "--port", "99999"],
         "argument --port: must be a whole number between 0 and 65535 (0: any free port)"),
        (["sim2l", "a.ipynb", "--port", "-1"], "argument --port: must be a whole number between 0 and 65535"),
        (["run", "app.py", "--workers", "0"], "argument --workers: must be a number of processes from 1 to"),
        (["run", "app.py", "--workers", "2"], "--workers 2 needs a shared state store"),
        # trial50 F4: with a shared store it served stdio as one process, saying nothing
        (["run", "app.py", "--transport", "stdio", "--workers", "2", "--state-url", "redis://127.0.0.1:1/0"],
         "--workers 2 serves HTTP only: over stdio one process serves its one client"),
        (["server-json", "app.py", "--name", "bad"], "argument --name: registry name 'bad' must be reverse-DNS"),
        # found by a fresh-user trial: an unknown option got the top-level usage and "nanohubmcp: error:"
        (["run", "app.py", "--bogus"], "unrecognized arguments: --bogus"),
        (["run", "app.py", "other.py"], "unrecognized arguments: other.py"),
        (["export", "a.ipynb", "--bogus", "1"], "unrecognized arguments: --bogus 1"),
        (["provenance", "export", "ID", "--bogus"], "unrecognized arguments: --bogus"),
        (["hub-tools", "--url", "ftp://x"], "unrecognized arguments: --url"),
        (["server-json", "app.py", "--bogus"], "unrecognized arguments: --bogus"),
        (["bridge", "http://127.0.0.1:9/mcp", "--bogus"], "unrecognized arguments: --bogus"),
        (["desktop-config", "app.py", "--bogus"], "unrecognized arguments: --bogus"),
        (["sim2l", "a.ipynb", "--bogus"], "unrecognized arguments: --bogus"),
        (["rappture", "a.xml", "--bogus"], "unrecognized arguments: --bogus"),
        # a license is checked before the record is looked up (there is none here: that would be exit 1)
        (["provenance", "export", "ID", "--license", "CC-BY-40"], "license 'CC-BY-40' is not on the SPDX License"),
        (["provenance", "export", "ID", "--license", "not a license!"], "give an SPDX identifier such as CC-BY-4.0"),
        (["provenance", "list", "--limit", "0"],
         "argument --limit: must be a number of records from 1 to 10000, not '0'"),
        (["provenance", "list", "ID"], "unrecognized arguments: ID"),
    ],
)
def test_a_malformed_command_line_exits_2_with_the_usage(tmp_path: Path, arguments: list[str], message: str) -> None:
    (tmp_path / "app.py").write_text(APP)
    done = nanohubmcp(*arguments, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    command = " ".join(arguments[:2]) if arguments[0] == "provenance" else arguments[0]  # (its own subcommands)
    assert done.stderr.startswith(f"usage: nanohubmcp {command} "), done.stderr
    assert f"nanohubmcp {command}: error: " in done.stderr
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_an_unknown_option_before_the_command_is_the_top_level_parsers(tmp_path: Path) -> None:
    done = nanohubmcp("--bogus", "run", "app.py", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("usage: nanohubmcp [-h] [--version] COMMAND ...\n"), done.stderr
    assert done.stderr.endswith("nanohubmcp: error: unrecognized arguments: --bogus\n")


def test_a_well_formed_command_that_fails_exits_1_without_the_usage(tmp_path: Path) -> None:
    done = nanohubmcp("desktop-config", "missing.py", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr == "nanohubmcp desktop-config: error: app file 'missing.py' does not exist\n"


def test_a_state_url_scheme_in_capitals_is_read_as_its_lower_case() -> None:
    """RFC 3986 § 3.1: schemes are case-insensitive; redis-py takes lower case only (a trial's
    ``REDIS://`` passed our check, then failed as a traceback inside redis-py)."""
    from nanohubmcp.state import parse

    assert parse("REDIS://127.0.0.1:6379/0").url == "redis://127.0.0.1:6379/0"
    assert parse("Rediss://127.0.0.1:6379/0").kind == "redis"
