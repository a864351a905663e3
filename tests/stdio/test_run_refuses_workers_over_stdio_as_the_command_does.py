"""``server.run(transport="stdio", workers=2)`` is refused as ``nanohubmcp run --transport stdio --workers 2`` is,
by one rule (:func:`nanohubmcp.serving.runners.refuse_stdio_workers`): one process serves a stdio client, so more
than one is a setting that cannot work. It served one process, saying nothing (the command line refused it since
trial50 F4); ``$MCP_TRANSPORT=stdio`` choosing stdio is named in the refusal, in both.

Each script is a real ``python`` process with stdin at its end: one that served stdio would exit 0, saying nothing.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support import refused_run

ROOT = Path(__file__).resolve().parents[2]


def script(folder: Path, body: str, *, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run a script of ``body`` after ``server = MCPServer(...)`` in ``folder`` (stdin at its end)."""
    path = folder / "served.py"
    path.write_text(f"from nanohubmcp import MCPServer\nserver = MCPServer('stdio-workers')\n{body}\n"
                    "print('after run', flush=True)\n")
    environ = {k: v for k, v in os.environ.items() if k not in ("MCP_TRANSPORT", "NANOHUBMCP_STATE_URL")}
    environ.update(PYTHONPATH=str(ROOT), **(env or {}))
    return subprocess.run([sys.executable, str(path)], cwd=folder, capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL, check=False, env=environ)


PYTHON = ("workers=2 serves HTTP only: over stdio one process serves its one client; leave workers= out, or serve "
          "with transport='http'")


@pytest.mark.parametrize("workers", ["2", "2.0"])
def test_run_over_stdio_with_workers_is_one_line_and_exit_status_2(tmp_path: Path, workers: str) -> None:
    done = script(tmp_path, f"server.run(transport='stdio', workers={workers})")
    assert done.returncode == 2, done
    assert done.stderr == f"Error: {PYTHON}\n", done.stderr
    assert done.stdout == ""  # nothing served, nothing after it


def test_mcp_transport_stdio_with_workers_is_refused_naming_the_variable(tmp_path: Path) -> None:
    done = script(tmp_path, "server.run(workers=3)", env={"MCP_TRANSPORT": "stdio"})
    assert done.returncode == 2, done
    assert done.stderr == ("Error: workers=3 serves HTTP only: over stdio ($MCP_TRANSPORT=stdio) one process serves "
                           "its one client; leave workers= out, or serve with transport='http'\n"), done.stderr


def test_the_refusal_is_a_configuration_error_a_script_may_catch(tmp_path: Path) -> None:
    done = script(tmp_path, "from nanohubmcp.errors import ConfigurationError\n"
                  "try:\n    server.run(transport='stdio', workers=2)\n"
                  "except ConfigurationError as exc:\n    print('caught:', exc)")
    assert done.returncode == 0, done
    assert done.stdout == f"caught: {PYTHON}\nafter run\n"
    assert done.stderr == ""


def test_one_process_over_stdio_still_serves(tmp_path: Path) -> None:
    done = script(tmp_path, "server.run(transport='stdio', workers=1)")
    assert done.returncode == 0, done
    assert done.stdout == ""  # kept for the protocol: what the script prints after run() goes to stderr
    assert done.stderr.endswith("after run\n"), done.stderr  # served until the end of stdin, then returned


def test_the_command_refuses_it_by_the_same_rule_naming_the_variable_too(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_TRANSPORT", "stdio")
    err = refused_run(tmp_path, "--workers", "2", "--state-url", "redis://127.0.0.1:1/0")
    assert err.endswith("nanohubmcp run: error: --workers 2 serves HTTP only: over stdio ($MCP_TRANSPORT=stdio) one "
                        "process serves its one client; leave --workers out, or serve with --transport http\n"), err
