"""No ``except`` that guards an await or a future's ``result`` names the builtin ``TimeoutError`` alone
(review r22 M2).

Before Python 3.11, ``asyncio.wait_for`` (and Tornado's ``connect(timeout=)``) raise
``asyncio.TimeoutError`` and a future's ``result(timeout)`` raises ``concurrent.futures.TimeoutError``:
two classes apart from the builtin. ``except TimeoutError`` then lets the time-out through, and the
package declares ``requires-python >= 3.10``. ``provenance/awaited.py`` did: on 3.10 every read of a
record not stored on a shared store raised instead of answering "not found" (ruff's UP041 does not look
before target py311). The second test runs that module under a Python 3.10 found on the machine.
"""

from __future__ import annotations

import ast
import subprocess
import textwrap
from pathlib import Path

import pytest
from support import python310

import nanohubmcp
from nanohubmcp.server.provenance import awaited

PACKAGE = Path(nanohubmcp.__file__).parent
TRIES = tuple(getattr(ast, name) for name in ("Try", "TryStar") if hasattr(ast, name))  # (TryStar: 3.11+)
RIGHT = {"asyncio.TimeoutError", "concurrent.futures.TimeoutError", "futures.TimeoutError"}


def _names(node: ast.expr | None) -> list[str]:
    if node is None:
        return []
    if isinstance(node, ast.Tuple):
        return [name for item in node.elts for name in _names(item)]
    return [ast.unparse(node)]


def _waits(body: list[ast.stmt]) -> bool:
    """Whether ``body`` awaits something or asks a future for its result."""
    for node in ast.walk(ast.Module(body=body, type_ignores=[])):
        if isinstance(node, ast.Await):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "result":
            return True
    return False


def _builtin_only(tree: ast.AST) -> list[int]:
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, TRIES) or not _waits(node.body):
            continue
        for handler in node.handlers:
            names = _names(handler.type)
            if "TimeoutError" in names and not RIGHT & set(names):
                lines.append(handler.lineno)
    return lines


def test_the_rule_sees_the_gap_it_is_for() -> None:
    gap = """
    async def f(future):
        try:
            await asyncio.wait_for(future, 1)
        except (OSError, TimeoutError):
            pass
        try:
            future.result(1)
        except TimeoutError:
            pass
        try:
            await asyncio.wait_for(future, 1)
        except asyncio.TimeoutError:
            pass
        try:
            sock.connect(address)
        except TimeoutError:  # a socket's time-out is the builtin on 3.10 too
            pass
    """
    assert _builtin_only(ast.parse(textwrap.dedent(gap))) == [5, 9]


def test_no_wait_of_the_package_catches_only_the_builtin_timeouterror() -> None:
    found = {
        str(path.relative_to(PACKAGE)): lines
        for path in sorted(PACKAGE.rglob("*.py"))
        if (lines := _builtin_only(ast.parse(path.read_text(encoding="utf-8"))))
    }
    assert not found, f"catch asyncio.TimeoutError (the builtin only from Python 3.11 on): {found}"


PROBE = """
import asyncio, importlib.util, sys
spec = importlib.util.spec_from_file_location("awaited", sys.argv[1])
module = importlib.util.module_from_spec(spec)
sys.modules["awaited"] = module
spec.loader.exec_module(module)

class Never:
    def written(self, ids): return set()
    def changed(self): return True

print(asyncio.run(module.AwaitedRecords(Never(), every=0.01).written("x" * 24, None, 0.2)))
"""


def test_a_wait_for_a_record_never_written_answers_false_on_python_310(tmp_path: Path) -> None:
    python = python310()
    if python is None:
        pytest.skip("no Python 3.10 interpreter on this machine")
    # the module uses the standard library only: a bare 3.10 loads it by its path
    done = subprocess.run([python, "-c", PROBE, awaited.__file__], capture_output=True, text=True, timeout=60,
                          check=False, cwd=tmp_path)
    assert (done.returncode, done.stdout.strip()) == (0, "False"), done.stderr
