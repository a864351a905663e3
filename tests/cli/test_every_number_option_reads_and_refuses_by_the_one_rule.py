"""The command line's numbers follow the whole-number rule (review r26 LOW-1, NIT-3, NIT-6; trial 50 F3, F5, F8,
F10), seen through real ``nanohubmcp`` processes:

- the port's text (``--port``, ``$MCP_PORT``) is read as every flag's (``0.0`` taken, as ``--workers 4.0`` was; it
  was refused) in ASCII digits only (full-width digits were taken by ``int()``);
- a refusal names what the option takes and what to write (``--workers 2.5`` said only "not a whole number:
  '2.5'"; ``--workers 1e31``, a whole number, was "not a whole number");
- a bad ``$MCP_PORT`` or ``$NANOHUBMCP_STATE_URL`` is a usage error before any tool is read (exit 2), as the same
  value on the command line is (it was exit 1, after the tool was read);
- ``rappture --timeout 0`` is a usage error before the tool is read, in ``--cell-timeout``'s words (it was exit 1,
  after), and ``--cell-timeout inf`` is its default, no limit (it was refused).
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

APP = ('from nanohubmcp import MCPServer\nserver = MCPServer("nums")\n\n@server.tool()\n'
       'def add(a: int, b: int) -> int:\n    """Add."""\n    return a + b\n')
MISSING_TOOL = "/nonexistent/nums2/tool.xml"  # read only after the options: a refusal before it is exit 2, after it 1


def nanohubmcp(*arguments: str, cwd: Path, **environ: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("MCP_PORT", "NANOHUBMCP_STATE_URL")} | environ
    return subprocess.run([sys.executable, "-m", "nanohubmcp", *arguments], cwd=cwd, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL, check=False, env=env)


def serves(*arguments: str, cwd: Path, **environ: str) -> str:
    """The listening line of ``nanohubmcp run app.py ARGUMENTS`` (stopped once it said it)."""
    (cwd / "app.py").write_text(APP)
    env = {k: v for k, v in os.environ.items() if k not in ("MCP_PORT", "NANOHUBMCP_STATE_URL")} | environ
    proc = subprocess.Popen([sys.executable, "-m", "nanohubmcp", "run", "app.py", *arguments], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    said, deadline = [], time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stdout], [], [], deadline - time.monotonic())
            line = proc.stdout.readline() if ready else ""
            if not line:
                break
            said.append(line)
            if " listening on " in line:
                return line
        raise AssertionError("".join(said))
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)


@pytest.mark.parametrize(("arguments", "environ"), [(["--port", "0.0"], {}), ([], {"MCP_PORT": "0e3"})],
                         ids=["flag", "variable"])
def test_a_port_written_as_a_whole_float_is_served_on(arguments: list[str], environ: dict[str, str],
                                                      tmp_path: Path) -> None:
    line = serves(*arguments, cwd=tmp_path, **environ)
    assert int(line.rsplit(":", 1)[1]) > 0


TAKES = "must be a whole number between 0 and 65535 (0: any free port)"
SECONDS = "argument --timeout: must be a positive number of seconds, or inf for no limit"


@pytest.mark.parametrize(("arguments", "environ", "message"), [
    (["--port", "\uff11\uff19\uff15\uff12\uff14"], {},
     f"argument --port: {TAKES}, not '\uff11\uff19\uff15\uff12\uff14'; write it in ASCII digits: 19524"),
    ([], {"MCP_PORT": "\uff11\uff19\uff15\uff12\uff14"},
     f"argument --port: $MCP_PORT {TAKES}, not '\uff11\uff19\uff15\uff12\uff14'; write it in ASCII digits: 19524"),
    (["--port", "8000.5"], {}, f"argument --port: {TAKES}, not '8000.5'; write a whole number: 8001"),
    ([], {"MCP_PORT": "abc"}, f"argument --port: $MCP_PORT {TAKES}, not 'abc'"),
    ([], {"NANOHUBMCP_STATE_URL": "nonsense"}, "error: $NANOHUBMCP_STATE_URL: state_url 'nonsense': unknown scheme"),
    (["--workers", "2.5"], {}, "argument --workers: must be a number of processes from 1 to"),
    (["--workers", "1e31"], {}, "(8 per CPU, never fewer than 64), not '1e31'"),
    (["--timeout", "0"], {}, f"{SECONDS}, not '0'"),
    (["--timeout", "nan"], {}, f"{SECONDS}, not 'nan'"),
    (["--timeout", "-1"], {}, f"{SECONDS}, not '-1'"),
], ids=["full-width-flag", "full-width-variable", "half-port", "port-variable", "state-url-variable", "workers-half",
        "workers-huge", "timeout-0", "timeout-nan", "timeout-negative"])
def test_a_bad_number_is_a_usage_error_before_the_tool_is_read(arguments: list[str], environ: dict[str, str],
                                                               message: str, tmp_path: Path) -> None:
    done = nanohubmcp("rappture", MISSING_TOOL, *arguments, cwd=tmp_path, **environ)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr, done.stderr
    assert "does not exist" not in done.stderr  # (the tool was not read)
    if arguments[:1] == ["--workers"] and "2.5" in arguments:
        assert done.stderr.rstrip().endswith("not '2.5'; write a whole number: 3")


def test_the_cell_timeouts_refusal_says_inf_is_no_limit(tmp_path: Path) -> None:
    done = nanohubmcp("sim2l", "/nonexistent/nums2.ipynb", "--cell-timeout", "0", cwd=tmp_path)
    assert done.returncode == 2
    assert "argument --cell-timeout: must be a positive number of seconds, or inf for no limit, not '0'" in done.stderr


def test_a_cell_timeout_of_inf_is_no_limit() -> None:
    from nanohubmcp.cli.parser import parse_arguments

    assert parse_arguments(["sim2l", "n.ipynb", "--cell-timeout", "inf"]).cell_timeout is None
    assert parse_arguments(["sim2l", "n.ipynb", "--cell-timeout", "2.5"]).cell_timeout == 2.5


def test_a_zero_written_with_a_long_exponent_is_zero(tmp_path: Path) -> None:
    from nanohubmcp.protocol.whole_numbers import whole_text

    assert whole_text("0e999999999") == 0
    done = nanohubmcp("rappture", MISSING_TOOL, "--max-request-bytes", "0e999999999", cwd=tmp_path)
    assert done.returncode == 2
    assert "--max-request-bytes must be at least 1024, not 0" in done.stderr, done.stderr


@pytest.mark.parametrize(("arguments", "environ", "message"), [
    (["--port", "\uff11"], {}, f"argument --port/-p: {TAKES}, not '\uff11'; write it in ASCII digits: 1"),
    ([], {"MCP_PORT": "8000.5"}, f"$MCP_PORT {TAKES}, not '8000.5'; write a whole number: 8001"),
    (["--cell-timeout", "0"], {}, "argument --cell-timeout: must be a positive number of seconds, or inf for no "
                                  "limit, not '0'"),
], ids=["full-width-flag", "half-variable", "cell-timeout"])
def test_start_mcp_reads_the_port_and_the_cell_timeout_by_the_same_rule(
        arguments: list[str], environ: dict[str, str], message: str, tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(APP)
    env = {k: v for k, v in os.environ.items() if k not in ("MCP_PORT", "NANOHUBMCP_STATE_URL")} | environ
    done = subprocess.run([sys.executable, "-m", "nanohubmcp.nanohub.launcher", "--app", "app.py", *arguments],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                          check=False, env=env)
    assert done.returncode == 2, done.stderr
    assert f"start_mcp: error: {message}" in done.stderr, done.stderr
