"""No mixin reaches for its host's private attributes: a class reads ``self._x`` only where it, or a base class
of it, sets ``_x`` (in a method, as a class attribute, or as a dataclass field). Review r42 (R42-3) found
``CallFacts`` reading the ``_core``, ``_request`` and ``_job_id`` its subclass ``Context`` set; ``JobKeeping``
read the ``_writes`` and ``_elsewhere`` ``JobStore`` set, declared only as annotations. Each now takes them at
its own ``__init__``. (An ``ast`` scan of ``nanohubmcp/``; a class with a base the scan cannot resolve to one
class of the package is left out.)"""

from __future__ import annotations

import ast
from pathlib import Path

import nanohubmcp

PACKAGE = Path(nanohubmcp.__file__).parent
_PLAIN_BASES = {"object", "Protocol", "Generic", "ABC"}


def _classes() -> dict[str, list[tuple[Path, ast.ClassDef]]]:
    found: dict[str, list[tuple[Path, ast.ClassDef]]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, []).append((path, node))
    return found


def _is_dataclass(node: ast.ClassDef) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.id if isinstance(target, ast.Name) else getattr(target, "attr", "")
        if name == "dataclass":
            return True
    return False


def _private_self(node: ast.AST) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self" \
            and node.attr.startswith("_") and not node.attr.startswith("__"):
        return node.attr
    return None


def _sets(node: ast.ClassDef) -> set[str]:
    """The names ``node`` itself defines or assigns."""
    names: set[str] = set()
    for statement in node.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(statement.name)
        elif isinstance(statement, ast.Assign):
            names |= {target.id for target in statement.targets if isinstance(target, ast.Name)}
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) \
                and (statement.value is not None or _is_dataclass(node)):
            names.add(statement.target.id)
    for inner in ast.walk(node):
        name = _private_self(inner)
        if name is not None and isinstance(inner.ctx, (ast.Store, ast.Del)):  # type: ignore[attr-defined]
            names.add(name)
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr == "__setattr__" \
                and len(inner.args) >= 2 and isinstance(inner.args[1], ast.Constant):
            names.add(str(inner.args[1].value))
    return names


def _owned(node: ast.ClassDef, classes: dict[str, list[tuple[Path, ast.ClassDef]]],
           seen: frozenset[str] = frozenset()) -> set[str] | None:
    """What ``node`` and its bases set, or None when a base is not one class of the package."""
    names = _sets(node)
    for base in node.bases:
        name = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else None
        if name in _PLAIN_BASES:
            continue
        found = classes.get(name or "")
        if name is None or name in seen or found is None or len(found) != 1:
            return None
        inherited = _owned(found[0][1], classes, seen | {name})
        if inherited is None:
            return None
        names |= inherited
    return names


def test_every_private_attribute_a_class_reads_is_set_by_it_or_a_base() -> None:
    classes = _classes()
    found = []
    for name, places in classes.items():
        for path, node in places:
            owned = _owned(node, classes)
            if owned is None:
                continue
            read = sorted({attr for inner in ast.walk(node) if (attr := _private_self(inner)) and attr not in owned})
            if read:
                found.append(f"{path.relative_to(PACKAGE.parent)}: {name} reads {read}, set by no base of it")
    assert not found, found
