"""Where a component cell's function and a view cell's expression are, read from the cell's source.

Pure :mod:`ast` work on the Python source of a ``%%mcp_tool``/``%%mcp_resource``/``%%mcp_prompt``/
``%%mcp_view`` cell (after IPython's transforms), shared by the live magics and the notebook
exporter. Imports neither IPython nor Tornado.

- :func:`split_last_expression`: a ``%%mcp_view`` cell's code and its final expression (the view).
- :func:`find_functions` / :func:`pick_function`: which top-level function of a cell is the
  component, and where its definition starts.
"""

from __future__ import annotations

import ast
import types
from dataclasses import dataclass

from ..errors import RegistrationError
from ..protocol import ast_guard
from .script_text import code_lines

__all__ = ["FunctionInfo", "find_functions", "pick_function", "split_last_expression", "uncalled_function"]


def split_last_expression(source: str) -> tuple[str, str | None]:
    """``(code before, last expression)`` of a cell's Python source; ``(source, None)`` when it ends otherwise.

    Raises:
        SyntaxError: the source does not parse.
    """
    tree = ast_guard.parse(source)
    if not tree.body or not isinstance(tree.body[-1], ast.Expr):
        return source, None
    last = tree.body[-1]
    lines = code_lines(source)
    before = "\n".join([*lines[: last.lineno - 1], lines[last.lineno - 1][: last.col_offset]])
    return before, ast.get_source_segment(source, last.value) or ast.unparse(last.value)


@dataclass(frozen=True)
class FunctionInfo:
    """A top-level function definition in a cell.

    Attributes:
        name: the function's name.
        lineno: 1-based line of the first decorator, or of ``def`` when undecorated (where an
            exporter inserts ``@server.tool(...)``).
        def_lineno: 1-based line of the ``def`` keyword.
        is_async: defined with ``async def``.
    """

    name: str
    lineno: int
    def_lineno: int
    is_async: bool


def find_functions(source: str) -> list[FunctionInfo]:
    """Every top-level ``def`` / ``async def`` of ``source``, in order.

    Raises:
        SyntaxError: ``source`` is not valid Python (callers report it their own way).
    """
    tree = ast_guard.parse(source)
    found = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            found.append(FunctionInfo(node.name, first, node.lineno, isinstance(node, ast.AsyncFunctionDef)))
    return found


def pick_function(source: str, name: str | None = None, *, kind: str = "tool") -> tuple[FunctionInfo, bool]:
    """Choose the function a component cell registers.

    Functions whose names start with ``_`` are helpers and never chosen unless they are the
    only ones. With ``name``, a function of that name wins; otherwise the cell must define
    exactly one candidate, which is then registered under ``name`` (a rename).

    Args:
        source: the cell's Python source (after IPython's transforms).
        name: the ``--name`` option, or None.
        kind: ``"tool"``, ``"resource"`` or ``"prompt"``, for messages.
    Returns:
        ``(function, renamed)``: renamed is True when ``name`` differs from the function's name.
    Raises:
        RegistrationError: the cell defines no function, or several and ``name`` picks none.
        SyntaxError: ``source`` is not valid Python.
    """
    functions = find_functions(source)
    if not functions:
        raise RegistrationError(
            f"%%mcp_{kind}: the cell defines no function; write `def my_{kind}(...):` at the top level of the cell"
        )
    if name is not None:
        for info in reversed(functions):
            if info.name == name:
                return info, False
    public = [info for info in functions if not info.name.startswith("_")] or functions
    distinct = list(dict.fromkeys(info.name for info in public))
    if len(distinct) > 1:
        listed = ", ".join(distinct)
        if name is None:
            fix = f"pick the one to serve with --name (--name {distinct[0]}), or start the helpers' names with '_'"
        else:  # --name both picks the function and, with one public function, names the tool
            fix = (f"none is named {name!r}: --name picks the one to serve (--name {distinct[0]}); to serve "
                   f"it as {name!r}, start the other functions' names with '_' (helpers) and keep --name {name}")
        raise RegistrationError(f"%%mcp_{kind}: the cell defines several functions ({listed}); {fix}")
    chosen = next(info for info in reversed(public) if info.name == distinct[0])
    return chosen, name is not None and name != chosen.name


def uncalled_function(source: str, info: FunctionInfo) -> types.FunctionType | None:
    """The function ``info``'s ``def`` in ``source`` makes, compiled but not run (its code alone: no globals,
    defaults or decorators), for what its code says of it (a generator function); None when that ``def`` alone
    does not compile (the script reports it where it runs)."""
    tree = ast_guard.parse(source)
    node = next(node for node in tree.body
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno == info.def_lineno)
    try:
        module = compile(ast.Module(body=[node], type_ignores=[]), "<cell>", "exec", dont_inherit=True)
    except SyntaxError:  # a nonlocal with no binding at the top level, ...
        return None
    code = next(const for const in module.co_consts if isinstance(const, types.CodeType))
    return types.FunctionType(code, {})
