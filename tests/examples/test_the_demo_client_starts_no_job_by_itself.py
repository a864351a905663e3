"""scripts/demo_client.py never starts a job by its own choice (trial78, LOW): on the hpc-jobs example it made up
arguments for ``relax_structure`` (an ``@async_tool``), so submitted a real Slurm job, and said "every step
succeeded" without polling it.

- Left to pick (no ``add``, no ``--tool``), it passes over the tools that run as tasks (``execution.taskSupport``)
  and the job tools ``get_job_result``/``cancel_job``: it calls a plain tool, or, with none, skips the call saying
  why (exit 1).
- A tool it picked that answers a job handle all the same (an ``@async_tool`` that takes no tasks) has its job
  cancelled at once, and the run fails saying so.
- A job tool the user names runs, and its job is polled with ``get_job_result`` until it ends; its result is shown.
  When ``--timeout`` runs out first, the failure names the job, which runs on (trial80 F10: it was not said).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from example_process import ROOT, run_example

pytestmark = pytest.mark.slow

CLIENT = ROOT / "scripts" / "demo_client.py"

SERVER = textwrap.dedent('''
    import time

    from nanohubmcp import MCPServer

    server = MCPServer("jobs", job_store="memory")

    @server.async_tool({options})
    def relax_structure(steps: int) -> dict:
        """Relax a structure: a long job (on a cluster, a batch job)."""
        time.sleep(1.5)
        return {{"relaxed_in": steps}}

    {plain}

    server.run(host="127.0.0.1", port=0)
''')
PLAIN = '''
@server.tool()
def scale(x: float) -> float:
    """Twice x."""
    return 2 * x
'''


def demo(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "MCP_TOKEN"}
    return subprocess.run([sys.executable, str(CLIENT), url, *args, "--timeout", "30"],
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, env=environment)


def jobs_server(tmp_path: Path, *, options: str = "", plain: bool = True) -> str:
    folder = tmp_path / "jobs"
    folder.mkdir()
    (folder / "start_mcp.py").write_text(SERVER.format(options=options, plain=PLAIN if plain else ""))
    return str(folder)


def test_a_plain_tool_is_called_and_the_job_tool_is_left_alone(tmp_path: Path) -> None:
    with run_example(jobs_server(tmp_path), default_args=False) as server:
        done = demo(server.url + "mcp")
    assert done.returncode == 0, done.stdout + done.stderr
    call = done.stdout.split("=== 3. tools/call ", 1)[1]
    assert call.startswith('scale {"x": 2}'), call
    assert "relax_structure {" not in done.stdout
    assert "job_id" not in call  # (the tools listed name it)
    assert "done: every step succeeded" in done.stdout


def test_a_server_of_job_tools_only_gets_no_call(tmp_path: Path) -> None:
    with run_example(jobs_server(tmp_path, plain=False), default_args=False) as server:
        done = demo(server.url + "mcp")
    assert "=== 3. tools/call (skipped) ===" in done.stdout, done.stdout
    assert "relax_structure {" not in done.stdout
    assert "6. prompts/list" in done.stdout  # the other steps ran
    assert done.returncode == 1
    assert ("tools/call skipped: the server's tools run as jobs (relax_structure), which may queue work on a "
            "cluster: this script starts none by itself; run one with --tool NAME --arguments JSON") in done.stderr


def test_a_picked_tool_answering_a_job_handle_has_its_job_cancelled(tmp_path: Path) -> None:
    folder = jobs_server(tmp_path, options='task_support="forbidden"', plain=False)  # lists no taskSupport
    with run_example(folder, default_args=False) as server:
        done = demo(server.url + "mcp")
    assert 'relax_structure {"steps": 2}' in done.stdout, done.stdout
    assert "(relax_structure started a job, which may queue work on a cluster: cancelled at once)" in done.stdout
    assert "every step succeeded" not in done.stdout
    assert done.returncode == 1
    assert ("DEMO FAILED: tool 'relax_structure', picked by this script, started a job (cancelled at once): run it "
            "with --tool relax_structure --arguments JSON to wait for its result") in done.stderr, done.stderr


def test_a_job_tool_the_user_names_is_polled_to_its_result(tmp_path: Path) -> None:
    with run_example(jobs_server(tmp_path), default_args=False) as server:
        done = demo(server.url + "mcp", "--tool", "relax_structure", "--arguments", '{"steps": 3}')
    assert done.returncode == 0, done.stdout + done.stderr
    polled = done.stdout.split("  get_job_result {", 1)[1]
    assert '"status": "done"' in polled, polled
    assert '"relaxed_in": 3' in polled, polled
    assert "done: every step succeeded" in done.stdout


LONG_JOB = textwrap.dedent('''
    import threading

    from nanohubmcp import MCPServer

    server = MCPServer("jobs", job_store="memory")
    never = threading.Event()

    @server.async_tool()
    def relax_structure(steps: int) -> dict:
        """Relax a structure: a job that outlives the client's --timeout."""
        never.wait(120)
        return {"relaxed_in": steps}

    server.run(host="127.0.0.1", port=0)
''')


def test_a_polled_job_outliving_the_timeout_is_named_in_the_failure(tmp_path: Path) -> None:
    folder = tmp_path / "jobs"
    folder.mkdir()
    (folder / "start_mcp.py").write_text(LONG_JOB)
    environment = {k: v for k, v in os.environ.items() if k != "MCP_TOKEN"}
    with run_example(str(folder), default_args=False) as server:
        done = subprocess.run([sys.executable, str(CLIENT), server.url + "mcp", "--tool", "relax_structure",
                               "--arguments", '{"steps": 3}', "--timeout", "8"], capture_output=True, text=True,
                              timeout=60, stdin=subprocess.DEVNULL, env=environment)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "(the call started a job" in done.stdout, done.stdout  # (the timeout ran out while polling)
    assert "DEMO FAILED: no answer within 8 s (job " in done.stderr, done.stderr
    assert "runs on: get_job_result {\"job_id\": " in done.stderr, done.stderr
