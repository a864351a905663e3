"""No part of the core is typed against the whole server: each names what it reads in a protocol of its own
(``asks/hosts``, ``calls/hosts``, ``handlers/host``, ``stateless/hosts``, the intake's ``Received``, ...), and
``ServerCore`` satisfies them where it is passed. Review r42 (R42-1) found ``Services`` — the server's name,
registry, sessions, jobs, bus, executor and the rest — a typed service locator: the method handlers
(``HandlerServices``), the call machinery and the client asks (``AskServices``) and a user's ``Context`` took it.

The union of what the handlers read (``Routed``) is the router's: only the dispatcher and the method tables name
it. That a tool's ``ctx`` reaches nothing of the core at run time is
``tests/server/test_a_tools_context_keeps_only_its_calls_seams.py``."""

from __future__ import annotations

import ast
from pathlib import Path

import nanohubmcp

PACKAGE = Path(nanohubmcp.__file__).parent
SERVER = PACKAGE / "server"

WHOLE = {"Services", "HandlerServices", "AskServices", "ServerCore"}
"""The whole server's types: no part of ``server/`` names them (``ServerCore`` is ``server/core.py``'s own)."""
ROUTED = "Routed"
ROUTERS = {SERVER / "dispatcher.py", SERVER / "methods.py"}


def _names(node: ast.AST | None) -> set[str]:
    """The names an annotation (or a type alias, or a base class) mentions, string annotations included."""
    found: set[str] = set()
    for sub in ast.walk(node) if node is not None else ():
        if isinstance(sub, ast.Name):
            found.add(sub.id)
        elif isinstance(sub, ast.Attribute):
            found.add(sub.attr)
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            try:
                found |= _names(ast.parse(sub.value, mode="eval"))
            except SyntaxError:
                continue
    return found


def _typed(tree: ast.AST) -> list[tuple[int, set[str]]]:
    """(line, names) of every parameter and attribute annotation, class base and type alias in ``tree``."""
    typed: list[tuple[int, set[str]]] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
                if arg is not None:
                    typed.append((arg.lineno, _names(arg.annotation)))
        elif isinstance(node, ast.AnnAssign):
            typed.append((node.lineno, _names(node.annotation)))
        elif isinstance(node, ast.ClassDef):
            typed.append((node.lineno, set().union(*(_names(base) for base in node.bases))))
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Subscript):
            typed.append((node.lineno, _names(node.value)))
    return typed


def _found(path: Path) -> list[str]:
    allowed = {ROUTED} if path in ROUTERS else set()
    forbidden = ({*WHOLE, ROUTED} - allowed) if path != SERVER / "core.py" else set()
    return [f"{path.relative_to(PACKAGE.parent)}:{line}: {sorted(names & forbidden)}"
            for line, names in _typed(ast.parse(path.read_text(encoding="utf-8"))) if names & forbidden]


def test_no_part_of_the_core_takes_the_whole_server() -> None:
    found = [place for path in sorted(SERVER.rglob("*.py")) for place in _found(path)]
    assert not found, ("parts of server/ typed against the whole server; name what the part reads in a protocol "
                       f"of its own (see server/services.py): {found}")


def test_a_parameter_typed_as_the_whole_server_is_found() -> None:
    tree = ast.parse('def f(core: "HandlerServices", x: int) -> None: ...\n'
                     "class C(Services, Protocol): ...\n"
                     'Handler = Callable[["AskServices", int], None]\n'
                     "class D:\n    core: ServerCore\n")
    assert [names & WHOLE for _, names in _typed(tree) if names & WHOLE] == [
        {"HandlerServices"}, {"Services"}, {"AskServices"}, {"ServerCore"}]
