"""A cached tool's key follows the code that runs, not the text of the file it was loaded from.

A user's module edited on disk but not loaded again still runs its old code. The key was made of the
helpers' source text (and a module used as a whole by its file), so when the key was made again for
another reason (a constant bound anew) it followed the new text while the old code ran, and the old
code's result was kept under the new text's key: once the module was reloaded (or the server
restarted), the new code's calls answered the old numbers with ``hit: true``. Now the key is made of
the compiled code (and of a module used as a whole as it was loaded), so an edit counts once it is
loaded — a reload or a restart — and not before.

Real files on a real import path, a real server with its SQLite cache; each answer is checked against
the function called directly.
"""

from __future__ import annotations

import importlib
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from nanohubmcp import MCPServer

CACHE = "io.nanohub/cache"


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    sys.path.insert(0, str(tmp_path))
    try:
        yield tmp_path
    finally:
        sys.path.remove(str(tmp_path))


def load(folder: Path, files: dict[str, str]) -> dict[str, ModuleType]:
    """Write ``files`` (module name -> text) and import each."""
    for name, text in files.items():
        (folder / f"{name}.py").write_text(text)
    importlib.invalidate_caches()
    return {name: importlib.import_module(name) for name in files}


def call(server: MCPServer, name: str, fn: Any) -> tuple[int, bool]:
    result = server.call(name, {"x": 5})
    answer = int(result.text)
    assert answer == fn(5), f"{name} answered {answer}, its code computes {fn(5)}"
    return answer, result["_meta"][CACHE]["hit"]


@pytest.mark.parametrize(("kind", "before", "body", "after", "answers"), [
    ("helper", "def g(x):\n    return x + 1\n", "{lib}.g(x)", "def g(x):\n    return x * 100\n", (6, 500)),
    ("whole", "SCALE = 2\n", "x * getattr({lib}, 'SCALE')", "SCALE = 30\n", (10, 150)),  # its file, as loaded
])
def test_a_module_edited_but_not_reloaded_is_no_new_key_and_its_reload_is(
    folder: Path, tmp_path: Path, kind: str, before: str, body: str, after: str, answers: tuple[int, int],
) -> None:
    tag = uuid.uuid4().hex[:8]
    lib, tools = f"edge{kind}_{tag}", f"edgetools{kind}_{tag}"
    modules = load(folder, {
        lib: before,
        tools: f"import {lib}\nFACTORS = [1]\n\n\ndef t(x: int) -> int:\n    'A cached tool.'\n"
               f"    return {body.format(lib=lib)} * FACTORS[0]\n",
    })
    old, new = answers
    server = MCPServer(f"edited-{kind}", state_dir=str(tmp_path / "state"))
    server.tool(cache=True)(modules[tools].t)
    server.start(port=0)
    try:
        assert call(server, "t", modules[tools].t) == (old, False)
        assert call(server, "t", modules[tools].t) == (old, True)
        (folder / f"{lib}.py").write_text(after)  # edited, not loaded
        modules[tools].FACTORS = [1]  # bound anew, same value: the key is made again
        assert call(server, "t", modules[tools].t) == (old, True)  # the same code runs: the same key
        importlib.reload(modules[lib])  # now the edit runs
        assert call(server, "t", modules[tools].t) == (new, False)  # was (old, True): the old code's result
        assert call(server, "t", modules[tools].t) == (new, True)
    finally:
        server.stop()


def test_a_tool_edited_before_its_first_call_is_keyed_by_the_code_that_ran(folder: Path, tmp_path: Path) -> None:
    """The tool's own file edited before its first call (not reloaded): the old code's result must not be
    kept where the edited code — a server started again on the same state directory — finds it."""
    tag = uuid.uuid4().hex[:8]
    tools = f"edgeown_{tag}"
    modules = load(folder, {tools: "def t(x: int) -> int:\n    'A cached tool.'\n    return x + 1\n"})
    state = str(tmp_path / "state")
    first = MCPServer("edited-own", state_dir=state)
    first.tool(cache=True)(modules[tools].t)
    edit = "def t(x: int) -> int:\n    'A cached tool.'\n    return x * 100\n"
    (folder / f"{tools}.py").write_text(edit)  # edited, not loaded
    first.start(port=0)
    try:
        assert call(first, "t", modules[tools].t) == (6, False)
    finally:
        first.stop()
    edited = importlib.reload(modules[tools])  # as a restart loads it
    second = MCPServer("edited-own", state_dir=state)
    second.tool(cache=True)(edited.t)
    second.start(port=0)
    try:
        assert call(second, "t", edited.t) == (500, False)  # was (6, True)
        assert call(second, "t", edited.t) == (500, True)
    finally:
        second.stop()
