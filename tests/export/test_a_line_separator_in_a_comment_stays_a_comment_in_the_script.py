"""Review r41, R41-3 (MED): the exporter split a cell's code with ``str.splitlines()``, which also ends a line
at U+2028, U+0085, ``\\x0b``, ``\\x0c`` and ``\\x1c``-``\\x1e``; Python's tokenizer ends one only at ``\\n``,
``\\r\\n`` and ``\\r``. So what the notebook runs as one comment line became a comment and a line of code in
``start_mcp.py`` (code a reviewer reads as a comment ran at the script's import), and a string holding one was cut
in two (the export failed with a traceback). The exporter now splits as Python does: the script runs what the
notebook ran."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import pytest
from export_roundtrip import SCRIPT_TOKEN, export, run_script
from support import post_rpc

from nanohubmcp.jupyter.script_text import code_lines

SEPARATORS = ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e"]


@pytest.mark.parametrize("separator", SEPARATORS, ids=[f"U+{ord(c):04X}" for c in SEPARATORS])
def test_code_lines_end_only_where_python_ends_a_line(separator: str) -> None:
    code = f"x = 1  # a note{separator}y = 2\nz = '{separator}'\r\nw = 3\r"
    lines = code_lines(code)
    assert len(lines) == len(ast.parse(code).body) == 3
    assert lines == [f"x = 1  # a note{separator}y = 2", f"z = '{separator}'", "w = 3"]


def test_hidden_code_in_a_comment_does_not_run_in_the_script(write_notebook: Callable[..., Path],
                                                              tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    setup = f"# set up\u2028import pathlib; pathlib.Path({str(marker)!r}).write_text('at import')\nSTART = 1"
    tool = ("%%mcp_tool\ndef greet(name: str) -> str:\n    \"\"\"Greet.\"\"\"\n"
            f"    # a note\u2028    pathlib.Path({str(marker)!r}).write_text('in the tool')\n"
            "    return 'Hello\x85' + name\n")
    notebook = write_notebook("%load_ext nanohubmcp", setup, tool)
    done = export(notebook, "-o", str(tmp_path / "start_mcp.py"))
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "start_mcp.py").read_text()
    assert "# a note\u2028    pathlib" in text
    assert "# set up\u2028import pathlib" in text
    with run_script(tmp_path / "start_mcp.py") as url:
        answer = post_rpc(url.removesuffix("mcp"), "tools/call", {"name": "greet", "arguments": {"name": "Ann"}},
                          headers={"Authorization": f"Bearer {SCRIPT_TOKEN}"})
        assert answer["result"]["isError"] is False, answer
        assert answer["result"]["content"][0]["text"] == "Hello\x85Ann"
    assert not marker.exists(), marker.read_text()
