"""No module rewires another object's behaviour by assigning to it.

The core is composed in constructors; a collaborator that calls back gets its callback through a
method of its own (``set_close_callback``, ``allow_escalation``, ...), never by another module
assigning ``obj.on_something = fn``. An exception is raised with what it carries, never patched
after it was caught (``exc.request_id = ...``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import nanohubmcp

PACKAGE = Path(nanohubmcp.__file__).parent
CALLBACK_NAMES = ("on_", "escalate")


def _assignments(tree: ast.AST) -> list[tuple[int, ast.Attribute]]:
    found = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                    and target.value.id not in ("self", "cls")):
                found.append((node.lineno, target))
    return found


def _caught_names(tree: ast.AST) -> set[str]:
    return {node.name for node in ast.walk(tree) if isinstance(node, ast.ExceptHandler) and node.name}


def test_no_callback_is_assigned_to_another_object() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if "compat" in path.parts:  # the Rappture compatibility package mirrors a foreign API
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for line, target in _assignments(tree):
            if target.attr.startswith(CALLBACK_NAMES):
                offenders.append(f"{path.relative_to(PACKAGE)}:{line}: {ast.unparse(target)} = ...")
    assert offenders == [], "give the object a method that takes the callback:\n" + "\n".join(offenders)


def test_no_caught_exception_is_patched() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        caught = _caught_names(tree)
        for line, target in _assignments(tree):
            assert isinstance(target.value, ast.Name)
            if target.value.id in caught and target.value.id in ("exc", "error", "err", "e"):
                offenders.append(f"{path.relative_to(PACKAGE)}:{line}: {ast.unparse(target)} = ...")
    assert offenders == [], "raise an exception that carries it instead:\n" + "\n".join(offenders)
