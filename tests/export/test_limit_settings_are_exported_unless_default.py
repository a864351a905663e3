"""A notebook's ``%config NanohubMCP.<limit>`` lines (``max_result_bytes``, ``max_stuck_calls``,
``max_kept_bytes``, ...) reach the exported script's ``MCPServer(...)`` as the kernel checked them, and those of
the HTTP server (``max_request_bytes``, ...) its ``server.run(...)``, so the running script answers with the
notebook's limits; one set to its default writes nothing (``MCPServer`` has that
default already), and a value the setting refuses fails the export naming the cell and the setting."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import nbformat
import pytest
from export_roundtrip import SCRIPT_TOKEN, run_script, script_server

from nanohubmcp.errors import NanohubMCPError
from nanohubmcp.jupyter.translate import Script, translate


def exported(*sources: str) -> Script:
    made = nbformat.v4.new_notebook()
    made.cells.extend(nbformat.v4.new_code_cell(source) for source in sources)
    return translate(made, source="work/demo.ipynb", format_code=False)


def test_the_limits_reach_the_scripts_server() -> None:
    script = exported(
        "%config NanohubMCP.max_result_bytes = 1000\n"
        "%config NanohubMCP.max_stuck_calls = 0\n"
        "%config NanohubMCP.max_kept_bytes = 1e9\n"
        "%config NanohubMCP.max_jobs = 20\n"
        "%config NanohubMCP.max_jobs = 10000\n"
    )
    assert ('server = MCPServer("demo", max_result_bytes=1000, max_stuck_calls=0, max_kept_bytes=1000000000)'
            in script.text)
    assert ("# %config NanohubMCP.max_result_bytes = 1000: applied in MCPServer(...) at the top of the file"
            in script.text)
    assert "# %config NanohubMCP.max_jobs = 10000: the default: nothing written" in script.text
    core = script_server(script.text).core
    assert core.result_options.max_result_bytes == 1000
    assert core.executor.max_stuck == 0
    assert core.result_store.max_bytes == 1_000_000_000


def test_no_limit_is_carried_as_none() -> None:
    script = exported("%config NanohubMCP.max_result_bytes = None")
    assert 'server = MCPServer("demo", max_result_bytes=None)' in script.text
    assert script_server(script.text).core.result_options.max_result_bytes is None


def test_the_event_bound_is_carried_none_or_raised_and_its_default_writes_nothing() -> None:
    script = exported("%config NanohubMCP.max_event_bytes = None")
    assert 'server = MCPServer("demo", max_event_bytes=None)' in script.text
    assert script_server(script.text).core.result_options.max_event_bytes is None
    raised = exported("%config NanohubMCP.max_event_bytes = 4 * 2**20")
    assert 'server = MCPServer("demo", max_event_bytes=4194304)' in raised.text
    default = exported("%config NanohubMCP.max_event_bytes = 1048576")
    assert "# %config NanohubMCP.max_event_bytes = 1048576: the default: nothing written" in default.text
    assert "max_event_bytes=" not in default.text


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("%config NanohubMCP.max_kept_bytes = 0",
         "NanohubMCP.max_kept_bytes must be a number of bytes >= 1, not 0 (default 536870912)"),
        ("%config NanohubMCP.max_stuck_calls = '64'",
         "NanohubMCP.max_stuck_calls must be a number of calls >= 0, not the str '64' (default 64)"),
    ],
)
def test_a_refused_limit_fails_the_export_naming_it(line: str, why: str) -> None:
    with pytest.raises(NanohubMCPError) as refused:
        exported(line)
    assert f"work/demo.ipynb, cell 1 ({line}): line 1 {why}" in str(refused.value)


def test_the_refused_line_of_a_settings_cell_is_named() -> None:
    """A fresh-user trial: the message quoted the cell's first line, a setting it took, and not the line it refused."""
    with pytest.raises(NanohubMCPError) as refused:
        exported("%config NanohubMCP.max_result_bytes = None\n"
                 "%config NanohubMCP.max_jobs = 20\n"
                 "%config NanohubMCP.max_unsent_bytes = 4096\n")
    assert ("work/demo.ipynb, cell 1 (%config NanohubMCP.max_result_bytes = None): line 3 "
            "NanohubMCP.max_unsent_bytes must be a number of bytes >= 1048576 (1 MiB), not 4096") in str(refused.value)



def test_a_pair_the_script_could_not_start_with_fails_the_export_naming_the_line() -> None:
    """A fresh-user trial: the export wrote max_request_bytes above max_buffered_bytes, a script run() refuses."""
    with pytest.raises(NanohubMCPError) as refused:
        exported("%config NanohubMCP.max_request_bytes = 100000\n%config NanohubMCP.max_buffered_bytes = 50000")
    assert ("work/demo.ipynb, cell 1 (%config NanohubMCP.max_request_bytes = 100000): line 2 "
            "NanohubMCP.max_buffered_bytes = 50000 is below NanohubMCP.max_request_bytes (100000); "
            "max_buffered_bytes must be at least max_request_bytes: lower max_request_bytes first, then "
            "max_buffered_bytes") in str(refused.value)
    with pytest.raises(NanohubMCPError) as refused:
        exported("%config NanohubMCP.max_request_bytes = 300000000")  # above the default max_buffered_bytes
    assert ("work/demo.ipynb, cell 1 (%config NanohubMCP.max_request_bytes = 300000000): line 1 "
            "NanohubMCP.max_request_bytes = 300000000 is above NanohubMCP.max_buffered_bytes (268435456); "
            "max_buffered_bytes must be at least max_request_bytes: raise max_buffered_bytes first, then "
            "max_request_bytes") in str(refused.value)


def test_a_pair_raised_in_the_order_named_is_exported() -> None:
    script = exported("%config NanohubMCP.max_buffered_bytes = 400000000",
                      "%config NanohubMCP.max_request_bytes = 300000000")
    assert ("server.run(**_command_line_options(), max_buffered_bytes=400000000, max_request_bytes=300000000)"
            in script.text)


def rest(url: str, body: dict[str, Any]) -> tuple[int, Any]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={
        "Content-Type": "application/json", "Authorization": f"Bearer {SCRIPT_TOKEN}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


@pytest.mark.slow
def test_the_running_script_has_the_notebooks_limits(tmp_path: Path) -> None:
    script = exported(
        '%%mcp_tool\ndef big(n: int) -> str:\n    "n characters."\n    return "x" * n\n',
        "%config NanohubMCP.max_result_bytes = 1000\n%config NanohubMCP.max_request_bytes = 4096\n"
        "%config NanohubMCP.max_buffered_bytes = 268435456",
    )
    assert 'server = MCPServer("demo", max_result_bytes=1000)' in script.text
    assert "server.run(**_command_line_options(), max_request_bytes=4096)" in script.text
    assert "# %config NanohubMCP.max_buffered_bytes = 268435456: the default: nothing written" in script.text
    path = tmp_path / "start_mcp.py"
    path.write_text(script.text)
    with run_script(path, env={"NANOHUBMCP_STATE_DIR": str(tmp_path / "state")}) as url:
        tools = url.removesuffix("mcp") + "tools/big"
        status, answer = rest(tools, {"n": 5000})
        assert status == 500
        assert "more than this server sends in one answer (max_result_bytes=1000)" in answer["error"]
        assert rest(tools, {"n": 10}) == (200, {"result": "x" * 10})
        assert rest(tools, {"n": 10, "pad": "x" * 5000})[0] == 413
