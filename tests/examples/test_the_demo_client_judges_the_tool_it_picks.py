"""scripts/demo_client.py, left to pick the tool itself (no ``add``, no ``--tool``), judges that call as it judges
one the user named (trial58 F5, F6) and names the port it cannot reach (F3):

- a picked tool that takes no arguments and answers an error fails the demo (rc 1), after the other steps ran;
  it is not said to "want arguments"; a picked tool with optional arguments that answers an error says it may
  want arguments, and the run ends with no "every step succeeded" and rc 1;
- a server whose every tool needs arguments (examples/data_analysis) gets one of them called with example values
  made up from its schema, and every other step (its two resources) runs;
- no server listening: the host:port and "is the server running?"."""

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
    from nanohubmcp import MCPServer

    server = MCPServer("err")

    @server.tool()
    def {name}({parameters}) -> str:
        """A tool that fails."""
        raise ValueError("{name} broke")

    server.run(host="127.0.0.1", port=0)
''')


def demo(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "MCP_TOKEN"}
    return subprocess.run([sys.executable, str(CLIENT), url, *args, "--timeout", "30"],
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, env=environment)


def failing_server(tmp_path: Path, name: str, parameters: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "start_mcp.py").write_text(SERVER.format(name=name, parameters=parameters))
    return folder


def test_a_picked_tool_without_parameters_that_errs_fails_the_demo(tmp_path: Path) -> None:
    with run_example(str(failing_server(tmp_path, "boom", "")), default_args=False) as server:
        done = demo(server.url + "mcp")
    assert "boom broke" in done.stdout, done.stdout
    assert "wants arguments" not in done.stdout
    assert "every step succeeded" not in done.stdout
    assert "6. prompts/list" in done.stdout  # the other steps ran
    assert done.returncode == 1, done.stdout
    assert "DEMO FAILED: tool 'boom', which takes no arguments, answered an error" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_a_picked_tool_with_optional_parameters_that_errs_fails_the_demo(tmp_path: Path) -> None:
    with run_example(str(failing_server(tmp_path, "big", "n: int = 100000")), default_args=False) as server:
        done = demo(server.url + "mcp")
    assert "big broke" in done.stdout, done.stdout
    assert "it may want other arguments: pass --tool big --arguments JSON" in done.stdout
    assert "every step succeeded" not in done.stdout
    assert done.returncode == 1, done.stdout
    assert "DEMO FAILED: tool 'big' answered an error" in done.stderr, done.stderr


def test_a_server_whose_tools_all_need_arguments_gets_one_called_with_example_values() -> None:
    with run_example("data_analysis") as example:
        done = demo(example.url + "mcp")
    assert done.returncode == 0, done.stdout + done.stderr
    call = done.stdout.split("=== 3. tools/call ", 1)[1]
    assert call.startswith('descriptive_stats {"data": "1,2,3,4,5"}'), call
    assert '"mean": 3.0' in call, call
    assert "data://samples/temperatures" in done.stdout  # step 4 ran
    assert "done: every step succeeded" in done.stdout


def test_no_server_names_the_port_and_asks_whether_it_runs() -> None:
    done = demo("http://127.0.0.1:9/mcp")  # the discard port: nothing listens there
    assert done.returncode == 1
    assert "cannot connect to 127.0.0.1:9 (is the server running?" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
