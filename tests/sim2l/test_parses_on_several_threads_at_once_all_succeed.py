"""Our parses of Python source on several threads at once (two Sim2L calls, a script's check) all succeed.

Before: on CPython 3.11.0-3.11.7 and 3.12.0-3.12.1 an ``ast`` build shares its recursion depth between threads
(CPython gh-106905). Every server times its garbage collections with a ``gc.callbacks`` entry (the worker pool's
:func:`~nanohubmcp.server.calls.slow_calls.count_collections`): Python code that runs in the middle of a parse
when it collects, where the interpreter may switch threads. A parse started by another thread meanwhile failed
the first one with ``SystemError: AST constructor recursion depth mismatch (before=18, after=19)``: a Sim2L
run's ``EXTRA_FILES`` read, its ``DESCRIPTION``, a served script's ``run(...)`` keywords; within a second or two
of this test every time (3 of 3 runs; with the lock taken out, 20 of 20 runs failed within the script's second
parse, so its 25 parses, about 1 s, are ample). The package's parses now go through
:mod:`nanohubmcp.protocol.ast_guard`.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from nanohubmcp.nanohub.run_call import serving_keywords
from nanohubmcp.server.calls.slow_calls import count_collections

DATA = Path(__file__).parent / "data" / "allkinds"


def _with_extra_files(folder: Path) -> Path:
    """The allkinds Sim2L with a cell tagged FILES naming 40 files (read with literal_eval per run)."""
    notebook = json.loads((DATA / "allkinds.ipynb").read_text())
    names = ", ".join(f'"data/file{i}.dat"' for i in range(40))
    notebook["cells"].insert(3, {"cell_type": "code", "execution_count": None, "id": "files",
                                 "metadata": {"tags": ["FILES"]}, "outputs": [],
                                 "source": f"EXTRA_FILES = [{names}]\n"})
    path = folder / "allkinds.ipynb"
    path.write_text(json.dumps(notebook, indent=1))
    return path


def _script(folder: Path) -> Path:
    """A served script of 300 tools, whose ``run(...)`` keywords the launcher reads (a long parse)."""
    tools = "".join(f"\n@server.tool()\ndef tool_{i}(x: int, y: float = {i}.5) -> dict:\n"
                    f"    \"\"\"Tool {i}.\"\"\"\n    return {{'sum': x + y, 'items': [x, y, {i}]}}\n"
                    for i in range(300))
    path = folder / "start_mcp.py"
    path.write_text(f"from nanohubmcp import MCPServer\n\nserver = MCPServer('many')\n{tools}\n"
                    "if __name__ == '__main__':\n    server.run(port=8000, host='0.0.0.0')\n")
    return path


@pytest.mark.timeout(120)
def test_our_parses_on_three_threads_at_once_all_succeed(tmp_path: Path) -> None:
    pytest.importorskip("nbformat")
    from nanohubmcp.sources.sim2l.execute import _extra_files
    from nanohubmcp.sources.sim2l.notebook import read_sim2l

    notebook, script = _with_extra_files(tmp_path), _script(tmp_path)
    spec = read_sim2l(notebook)
    assert spec.description.startswith("Every Sim2L input type in")
    assert len(_extra_files(spec)) == 40
    assert set(serving_keywords(script)) == {"port", "host"}
    count_collections()  # as every server's worker pool does
    errors: list[BaseException] = []
    done = threading.Event()

    def loop(work: Callable[[], Any], times: int | None) -> None:
        count = 0
        while not done.is_set() and (times is None or count < times):
            try:
                work()
            except BaseException as exc:  # any failure ends the loops and is reported
                errors.append(exc)
                done.set()
            count += 1
        done.set()

    threads = [
        threading.Thread(target=loop, args=(lambda: serving_keywords(script), 25)),
        threading.Thread(target=loop, args=(lambda: _extra_files(spec), None)),
        threading.Thread(target=loop, args=(lambda: read_sim2l(notebook), None)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(100)
    assert not any(thread.is_alive() for thread in threads)
    assert errors == []
