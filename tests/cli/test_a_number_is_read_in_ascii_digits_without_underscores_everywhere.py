"""Every number a user writes as text (an option's value, an environment variable's, a magic line's) is read by
one rule, :func:`~nanohubmcp.protocol.whole_numbers.plain_number_text`: ASCII digits, a sign, a point, an exponent,
and no ``_`` (review r27 #1). ``--exit-grace`` took full-width digits (``20``: 20 s) with ``float()`` while
``--workers`` refused them, and every number option took Python's ``_`` separators (``--port 8_000``,
``--workers 1_0``: 10, or a typo of 1?). Each is now refused, exit status 2, with what to write; seen through real
``nanohubmcp`` and ``start_mcp`` processes.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nanohubmcp.errors import ConfigurationError, RegistrationError

MISSING_TOOL = "/nonexistent/nums3/tool.xml"  # read only after the options: a refusal before it is exit 2
FULL_20 = "\uff12\uff10"
GRACE = "must be a number of seconds from 2 to 86400 (how long a stopping process takes at most to exit; default 10)"
PORT = "must be a whole number between 0 and 65535 (0: any free port)"


def nanohubmcp(*arguments: str, **environ: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MCP_", "NANOHUBMCP_"))} | environ
    return subprocess.run([sys.executable, "-m", "nanohubmcp", *arguments], capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL, check=False, env=env)


@pytest.mark.parametrize(("arguments", "environ", "message"), [
    (["--exit-grace", FULL_20], {}, f"argument --exit-grace: {GRACE}, not '{FULL_20}'; write it in ASCII digits: 20"),
    (["--exit-grace", "1_0"], {}, f"argument --exit-grace: {GRACE}, not '1_0'; write it without '_'"),
    (["--exit-grace", "\uff11"], {}, f"argument --exit-grace: {GRACE}, not '\uff11'; write it in ASCII digits: 1"),
    (["--port", "8_000"], {}, f"argument --port: {PORT}, not '8_000'; write it without '_'"),
    ([], {"MCP_PORT": "8_000"}, f"argument --port: $MCP_PORT {PORT}, not '8_000'; write it without '_'"),
    (["--workers", "1_0"], {}, "(8 per CPU, never fewer than 64), not '1_0'; write it without '_'"),
    (["--max-request-bytes", "1_000_000"], {},
     "argument --max-request-bytes: must be a whole number of bytes, not '1_000_000'; write it without '_'"),
    (["--timeout", "1_0"], {}, "argument --timeout: must be a positive number of seconds, or inf for no limit, not "
                               "'1_0'; write it without '_'"),
    (["--timeout", "\uff15"], {}, "argument --timeout: must be a positive number of seconds, or inf for no limit, "
                                  "not '\uff15'; write it in ASCII digits: 5"),
], ids=["grace-full-width", "grace-underscore", "grace-hint", "port", "port-variable", "workers", "bytes",
        "timeout-underscore", "timeout-full-width"])
def test_a_number_in_other_digits_or_with_underscores_is_a_usage_error(arguments: list[str],
                                                                       environ: dict[str, str], message: str) -> None:
    done = nanohubmcp("rappture", MISSING_TOOL, *arguments, **environ)
    assert done.returncode == 2, done.stderr
    assert done.stderr.rstrip().endswith(message), done.stderr
    assert "does not exist" not in done.stderr  # (the tool was not read)


def test_the_sim2l_cell_timeout_and_start_mcp_options_follow_the_rule(tmp_path: Path) -> None:
    done = nanohubmcp("sim2l", "/nonexistent/nums3.ipynb", "--cell-timeout", "1_0")
    assert done.returncode == 2
    assert "or inf for no limit, not '1_0'; write it without '_'" in done.stderr, done.stderr
    (tmp_path / "app.py").write_text("from nanohubmcp import MCPServer\nserver = MCPServer('n')\n")
    for arguments, message in ((["--startup-timeout", "1_0"], "argument --startup-timeout: must be a positive "
                                "number of seconds, not '1_0'; write it without '_'"),
                               (["--weber-port", FULL_20], f"argument --weber-port: {PORT}, not '{FULL_20}'; write "
                                "it in ASCII digits: 20"),
                               (["--exit-grace", FULL_20], f"argument --exit-grace: {GRACE}, not '{FULL_20}'")):
        done = subprocess.run([sys.executable, "-m", "nanohubmcp.nanohub.launcher", "--app", "app.py", *arguments],
                              cwd=tmp_path, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                              check=False)
        assert done.returncode == 2, done.stderr
        assert f"start_mcp: error: {message}" in done.stderr, done.stderr


def test_the_one_rule_reads_plain_numbers_and_refuses_the_rest() -> None:
    from nanohubmcp.processes.exit_grace import exit_grace_option
    from nanohubmcp.protocol.whole_numbers import plain_number_text, text_number, whole_text
    from nanohubmcp.transports.seconds_option import positive_seconds, seconds_or_no_limit

    assert [text_number(t) for t in ("2.5", " 1e3 ", "-4", "+.5")] == [2.5, 1000.0, -4.0, 0.5]
    assert [whole_text(t) for t in ("5", "5.0", "1e3")] == [5, 5, 1000]
    for text in ("8_000", "1_0.5", "\uff12", "\u0665", "5\u00a0"):
        assert not plain_number_text(text)
        assert text_number(text) is None
        assert whole_text(text) is None
    assert exit_grace_option("20") == 20.0
    assert seconds_or_no_limit("inf") is None
    assert positive_seconds("2") == 2.0
    from nanohubmcp.server.wire.trace_context import _step_threshold  # ($NANOHUBMCP_TRACING_STEP_MS)

    assert _step_threshold("2.5") == 0.0025
    assert _step_threshold("1_0") is None
    assert _step_threshold(FULL_20) is None
    for option in (exit_grace_option, positive_seconds, seconds_or_no_limit):
        for text in (FULL_20, "2_0"):
            with pytest.raises(argparse.ArgumentTypeError):
                option(text)


def test_the_notebook_lines_and_the_state_url_follow_the_rule() -> None:
    from nanohubmcp.jupyter.cellspec import parse_tool_line
    from nanohubmcp.jupyter.source_lines import parse_source_line
    from nanohubmcp.server.executors.slurm_options import slurm_minutes
    from nanohubmcp.state.url import parse as parse_state_url

    with pytest.raises(RegistrationError, match=r"--cache-ttl must be a positive number of seconds, not '1_0'; "
                                                r"write it without '_'"):
        parse_tool_line("--cache-ttl 1_0")
    assert parse_tool_line("--cache-ttl 30").cache_ttl == 30.0
    for kind, option in (("rappture", "--timeout"), ("sim2l", "--cell-timeout")):
        with pytest.raises(ValueError, match=f"{option} takes a number of seconds"):
            parse_source_line(kind, f"tool {option} {FULL_20}")
        assert parse_source_line(kind, f"tool {option} 20").options == {option[2:].replace("-", "_"): 20.0}
    with pytest.raises(ConfigurationError, match="is not a Slurm time"):
        slurm_minutes(FULL_20)
    with pytest.raises(ConfigurationError, match="is not a number"):
        parse_state_url("redis://127.0.0.1:6379/\uff11")
