"""``nanohubmcp export`` refuses a ``%%mcp_tool`` cell whose function is a generator (``yield`` in a ``def`` or an
``async def``) in one line, as the notebook and ``@server.tool()`` refuse it, and writes no file.

Found by a fresh-user trial (trial73 F1): the export wrote the script (exit 0), which stopped at import with a
RegistrationError traceback. The function is compiled, not run, to tell (the script's own check, on its code).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from export_roundtrip import export

TOOL = '%%mcp_tool\ndef add(a: int, b: int) -> int:\n    """Add."""\n    return a + b\n'


@pytest.mark.parametrize(("cell", "said"), [
    ("%%mcp_tool\ndef gen(n: int):\n    yield n\n", "tool 'gen' is a generator function (def with yield)"),
    ("%%mcp_tool --async --name agen\nimport asyncio\n\n@staticmethod\nasync def values(n: int = len([])):\n"
     "    await asyncio.sleep(0)\n    yield n\n", "tool 'agen' is an async generator function (async def with yield)"),
])
def test_a_generator_cell_is_refused_and_nothing_is_written(
        write_notebook: Callable[..., Path], tmp_path: Path, cell: str, said: str) -> None:
    path = write_notebook(TOOL, cell)
    done = export(path, "-o", str(tmp_path / "out.py"))
    assert done.returncode == 1, done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith(f"nanohubmcp export: error: {path}, cell 2 ({cell.splitlines()[0]}): {said}: "), line
    assert [p.name for p in tmp_path.iterdir()] == ["nb.ipynb"]


def test_a_function_that_only_holds_a_generator_is_exported(write_notebook: Callable[..., Path],
                                                             tmp_path: Path) -> None:
    inner = ('%%mcp_tool\ndef squares(n: int) -> list[int]:\n    """Squares."""\n'
             "    def each():\n        yield from range(n)\n    return [i * i for i in each()]\n")
    done = export(write_notebook(TOOL, inner), "-o", str(tmp_path / "out.py"))
    assert done.returncode == 0, done.stderr
    assert "@server.tool()\ndef squares" in (tmp_path / "out.py").read_text()
