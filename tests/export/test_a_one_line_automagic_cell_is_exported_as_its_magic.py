"""trial36 Z8: a one-line cell ``cd /data/run1`` — IPython runs ``%cd /data/run1`` (automagic, on by
default) — was exported as the Python division ``cd / data / run1`` and dropped as "display only", so
the script's later cells and tools ran in another folder.

The export now reads a one-line cell as IPython's automagic does (checked here against IPython's own
``InteractiveShell.transform_cell``): ``cd PATH`` becomes ``os.chdir``, as ``%cd PATH`` does.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from test_translate_turns_cells_into_script_code import plain

from nanohubmcp.jupyter.automagic import automagic_call

LINES = ["cd /tmp", "cd /data/run1", "cd", "cd = 3", "cd, x = 1, 2", "env FOO=bar", "ls -l", "cd.x /y",
         "print(1)", "pwd", "time", "mcp status", "  cd /tmp", "cd /a\ncd /b", "x = 1", "len /tmp"]


# IPython's rewriting, in a process of its own: an InteractiveShell here would be the process's singleton,
# which the kernel-magic tests' shell (IPython.testing.globalipapp) then cannot be (MultipleInstanceError).
IPYTHON_REWRITES = """
import json, sys
from IPython.core.interactiveshell import InteractiveShell

shell = InteractiveShell.instance()
assert shell.automagic
shell.register_magic_function(lambda line: None, "line", "mcp")  # as in a notebook that loaded the extension
print(json.dumps({line: [shell.transform_cell(line), shell.input_transformer_manager.transform_cell(line)]
                  for line in json.loads(sys.argv[1])}))
"""


@pytest.fixture(scope="module")
def ipython_rewrites() -> dict[str, list[str]]:
    """For each of LINES: [what IPython runs, the line after its input transformers alone]."""
    done = subprocess.run([sys.executable, "-c", IPYTHON_REWRITES, json.dumps(LINES)], capture_output=True,
                          text=True, timeout=120, check=True)
    return json.loads(done.stdout)


@pytest.mark.parametrize("line", LINES)
def test_a_line_is_rewritten_as_ipython_rewrites_it(line: str, ipython_rewrites: dict[str, list[str]]) -> None:
    theirs, transformed = ipython_rewrites[line]
    ours = automagic_call(transformed, set()) or transformed
    assert ours == theirs


def test_a_name_the_notebook_binds_shadows_the_magic() -> None:
    assert automagic_call("cd /tmp\n", {"cd"}) is None
    assert automagic_call("time\n", {"time"}) is None


def test_cd_to_an_absolute_path_becomes_os_chdir_not_a_dropped_division() -> None:
    script = plain("cd /tmp", "%%mcp_tool\ndef add(a: float, b: float) -> float:\n    return a + b\n")
    assert "display only" not in script.text
    assert 'import os; os.chdir(os.path.expanduser("/tmp"))  # %cd /tmp' in script.text
    assert not any("display only" in line for line in script.dropped)


def test_a_defined_name_keeps_the_line_python() -> None:
    script = plain("cd = 8\nx = 2", "cd /x", "%%mcp_tool\ndef add(a: float, b: float) -> float:\n    return a + b\n")
    assert "os.chdir" not in script.text
    assert "# dropped (display only): cd / x" in script.text


def test_automagic_off_keeps_the_line_python_until_it_is_on_again() -> None:
    tool = "%%mcp_tool\ndef add(a: float, b: float) -> float:\n    return a + b\n"
    script = plain("%automagic off", "cd /x", "%automagic", "cd /y", tool)
    assert "# dropped (display only): cd / x" in script.text  # off: Python, as in the notebook
    assert 'os.chdir(os.path.expanduser("/y"))' in script.text  # %automagic alone toggles it on again
