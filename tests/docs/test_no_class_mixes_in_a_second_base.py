"""No class of the package mixes in a second base: each has at most one base that is neither a protocol nor an
exception (review r42, R42-3: a mixin divides a class's text, not its responsibilities). ``Context`` took its
``debug``/``info``/``warning``/``error`` from a ``LevelMethods`` base and the document routes their error bodies
from a ``PlainErrors`` base. The level shorthands are plain functions now (``server/calls/call_log``), taken as
methods in the class body; the document routes' handlers subclass one handler of their own instead
(``transports/plain_errors.PlainErrorsHandler``, itself a ``BaseHandler``: one base, review r44 R43-10). An
``ast`` scan of ``nanohubmcp/``: the ``class`` statements, and the classes made by ``type(name, bases,
namespace)``.

Not counted: ``Protocol`` and ``Generic[...]`` and the protocols of the package (a protocol is a type, not an
implementation), an exception class (the exception tree roots every error at ``NanohubMCPError`` and lets it be a
``ValueError`` or a ``TimeoutError`` too, for callers that catch those), and the ``tuple[...]`` a
``TupleRecord`` is stored as (the record names the fields of its own tuple). The few allowed, with their reasons,
are :data:`ALLOWED`."""

from __future__ import annotations

import ast
import builtins
import importlib
from pathlib import Path

import nanohubmcp

PACKAGE = Path(nanohubmcp.__file__).parent

ALLOWED = {
    "protocol/blocks.py: Role": "the str-valued Enum idiom (`class Role(str, enum.Enum)`): members compare and "
                                "encode as their text",
    "transports/bodies.py: type(handler.__name__, (StreamedBody, handler), ...)":
        "Tornado reads a body in pieces only for a class decorated @stream_request_body: the streamed twin of a "
        "routed handler has to be a subclass of the handler itself, made once per class",
}
"""Classes with a second base that is a class, and why each may."""

_TYPING = {"Protocol", "Generic"}


def _name(base: ast.expr) -> str:
    target = base.value if isinstance(base, ast.Subscript) else base
    return ast.unparse(target)


def _modules() -> list[tuple[Path, ast.Module]]:
    return [(path, ast.parse(path.read_text(encoding="utf-8"))) for path in sorted(PACKAGE.rglob("*.py"))]


def _package_classes(modules: list[tuple[Path, ast.Module]]) -> dict[str, list[ast.ClassDef]]:
    found: dict[str, list[ast.ClassDef]] = {}
    for _, tree in modules:
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, []).append(node)
    return found


def _outside(dotted: str) -> type | None:
    """The class a base of the standard library or a dependency names (``ValueError``, ``sqlite3.DatabaseError``)."""
    module, _, attr = dotted.rpartition(".")
    try:
        found = getattr(importlib.import_module(module) if module else builtins, attr, None)
    except ImportError:
        return None
    return found if isinstance(found, type) else None


class _Kinds:
    """Whether a base names a protocol, an exception, or a class that counts."""

    def __init__(self, classes: dict[str, list[ast.ClassDef]]) -> None:
        self.classes = classes

    def kind(self, base: ast.expr, seen: frozenset[str] = frozenset()) -> str:
        name = _name(base)
        short = name.rpartition(".")[2]
        if short in _TYPING:
            return "protocol"
        if name == "tuple" and isinstance(base, ast.Subscript):
            return "storage"
        nodes = self.classes.get(name, []) if "." not in name else []  # (a dotted name is of another package)
        if len(nodes) == 1 and short not in seen:
            kinds = {self.kind(inner, seen | {short}) for inner in nodes[0].bases}
            if "protocol" in kinds and nodes[0].bases and all(k == "protocol" for k in kinds):
                return "protocol"
            return "exception" if "exception" in kinds else "class"
        outside = _outside(name)
        if outside is not None and issubclass(outside, BaseException):
            return "exception"
        return "class"


def _mixing(modules: list[tuple[Path, ast.Module]]) -> list[str]:
    kinds = _Kinds(_package_classes(modules))
    found = []
    for path, tree in modules:
        where = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases, label = node.bases, f"{where}: {node.name}"
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type" \
                    and len(node.args) == 3 and isinstance(node.args[1], ast.Tuple):
                bases = node.args[1].elts
                label = f"{where}: type({ast.unparse(node.args[0])}, ({', '.join(map(ast.unparse, bases))}), ...)"
            else:
                continue
            counted = [ast.unparse(base) for base in bases if kinds.kind(base) == "class"]
            if len(counted) > 1:
                found.append(f"{label} mixes {counted}")
    return found


def test_no_class_mixes_in_a_second_base_beyond_the_allowed() -> None:
    found = _mixing(_modules())
    assert [line for line in found if line.split(" mixes ")[0] not in ALLOWED] == []
    # each allowed one is still there: a stale entry would allow a new mixin of the same name unseen
    assert sorted(line.split(" mixes ")[0] for line in found) == sorted(ALLOWED)


def test_the_scan_sees_a_mixin() -> None:
    tree = ast.parse("class A:\n    pass\nclass B:\n    pass\nclass C(A, B):\n    pass\n"
                     "class E(ValueError, A):\n    pass\nclass P(A, Protocol):\n    pass\nD = type('D', (A, B), {})\n")
    found = _mixing([(PACKAGE / "probe.py", tree)])
    assert found == ["probe.py: C mixes ['A', 'B']", "probe.py: type('D', (A, B), ...) mixes ['A', 'B']"]
