"""An exported script whose tool the server refuses when the script starts (a function a decorator made a
generator: the export compiles the cell's code but does not run it, so it cannot tell) ends in one line naming the
tool and what to fix, not a traceback, however it is started: ``python start_mcp.py`` (status 1), ``nanohubmcp run
start_mcp.py`` (status 1), ``start_mcp --app start_mcp.py`` (status 2, its other one-line refusals').

Found by a fresh-user trial (trial74 F1, F2): ``python e6.py`` died with a full traceback ending in
``RegistrationError: tool 'gen5' is a generator function (def with yield)`` (the ``yield`` was the decorator's
wrapper's, not in the cell), and ``start_mcp --app`` printed the traceback, then its own "the app exited" line.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest
from nanohub_standins import Hub, Launch, free_port

pytestmark = pytest.mark.slow

CELLS = [
    "%load_ext nanohubmcp",
    "import functools\n\ndef _each(f):\n    @functools.wraps(f)\n    def w(*a, **k):\n        yield from f(*a, **k)\n"
    "    return w",
    '%%mcp_tool\n@_each\ndef gen5(n: int):\n    """Values."""\n    return [n]',
]
SAID = ("error: tool 'gen5' is a generator function (a decorator made it one: its wrapper 'w' yields, the function "
        "'gen5' it wraps does not): a call is answered with one value, and a generator has no MCP form; serve it "
        "without that decorator, or with one whose wrapper returns the values (a list, or a dict), ")


def _exported(hub: Hub) -> Path:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(cell) for cell in CELLS]
    path = hub.root / "e6.ipynb"
    nbformat.write(notebook, path)
    done = subprocess.run([sys.executable, "-m", "nanohubmcp", "export", str(path), "-o", str(hub.root / "e6.py")],
                          capture_output=True, text=True, timeout=120, env=hub.env(session=False), check=False)
    assert done.returncode == 0, done.stderr  # (the documented limit: the export does not run the cell's code)
    return hub.root / "e6.py"


def _one_line(stderr: str, prefix: str) -> None:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert lines[0].startswith(prefix + SAID), lines[0]


def test_python_and_nanohubmcp_run_say_the_refused_tool_in_one_line(hub: Hub) -> None:
    script = _exported(hub)
    env = hub.env(session=False, MCP_TOKEN="t74-token", MCP_PORT="0")
    for command, prefix in [([sys.executable, str(script)], "e6.py: "),
                            ([sys.executable, "-m", "nanohubmcp", "run", str(script), "--port", "0"],
                             "nanohubmcp run: ")]:
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env, cwd=hub.root,
                              stdin=subprocess.DEVNULL, check=False)
        assert done.returncode == 1, done.stderr
        _one_line(done.stderr, prefix)  # was, from python: a traceback of the decorator's line


def test_start_mcp_says_the_refused_tool_in_one_line(hub: Hub, launch: Callable[..., Launch]) -> None:
    script = _exported(hub)
    run = launch(["--app", str(script), "--host", "127.0.0.1", "--port", str(free_port())],
                 hub.env(session=False, MCP_TOKEN="t74-token"))
    assert run.wait(timeout=120) == 2, run.stdout + run.stderr
    assert "Traceback" not in run.stderr, run.stderr  # was: the traceback, then "the app exited with status 1 ..."
    errors = [line for line in run.stderr.splitlines() if "error" in line]  # (off a hub it also says why)
    assert len(errors) == 1, run.stderr
    assert errors[0].startswith("start_mcp: " + SAID), errors[0]
    assert "MCP Server ready!" not in run.stdout
