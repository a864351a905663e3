"""A cell's code (as IPython's input transformer made it) checked statement by statement for the script.

:meth:`Statements.script_code` compiles the code and replaces, each by its own line, the statements a script
cannot run: an IPython line (:mod:`.export_magic_lines` says what it becomes), a ``from __future__`` import
(moved to the top of the file), a top-level statement that only displays a value (``df``, ``display(x)``:
dropped with a comment). It refuses what the script would run wrongly: a syntax error or top-level ``await``,
IPython syntax used as a value (``x = !ls``), a cell binding a name the script uses itself (``server``...), a
second ``MCPServer``, an IPython line sharing its line with other statements, a name only a left-out cell
bound (:mod:`.export_bindings`). ``current().server`` becomes ``server`` (:mod:`.export_current`). A cell
using ``%mcp ...`` as a value raises
:class:`.export_outcomes.ReadsServer`: the cell is left out whole.

Which cells reach here, and with which lines before their code, is :mod:`.export_cells`'.
"""

from __future__ import annotations

import ast

from ..protocol import ast_guard
from .export_bindings import Bindings
from .export_current import CurrentServer
from .export_magic_lines import MagicLines
from .export_outcomes import Code, Cursor, ReadsServer, TopLevelAwait, Untranslatable
from .notebook_cells import bound_names, displays_only, ipython_call, is_name, reads_server
from .script_text import code_lines, shorten

__all__ = ["Statements"]

_RESERVED = {"server": "for its own MCPServer", "_command_line_options": "for its command line",
             "_CALLER_DIRECTORY": "for the directory it is started in"}
"""Names the script binds itself (:mod:`.script_frame`), and what for: a cell binding one is refused."""
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


class Statements:
    """Checks and rewrites the code of one cell after another.

    Args:
        cursor: the cell being translated (its line offset, its drop notes).
        magic_lines: what an IPython line becomes.
        bindings: the names only a left-out cell bound; told what each checked cell binds.
        futures: the ``from __future__`` names the script imports at its top, added to as cells import more.
    """

    def __init__(self, cursor: Cursor, magic_lines: MagicLines, bindings: Bindings, futures: list[str]) -> None:
        self._cursor = cursor
        self._magic_lines = magic_lines
        self._bindings = bindings
        self._futures = futures
        self._current = CurrentServer()

    def script_code(self, code: str) -> str:
        """``code`` with what a script cannot run replaced, each statement by a line (code or a comment).

        Raises:
            Untranslatable: one line saying what is wrong and on which line of the cell.
            ReadsServer: the cell uses ``%mcp ...`` as a value.
        """
        try:
            compile(code, "<cell>", "exec", dont_inherit=True)
        except SyntaxError as exc:
            where, msg = (exc.lineno or 1) + self._cursor.offset, exc.msg or "invalid syntax"
            if "outside" in msg and ("await" in msg or "async" in msg):
                raise TopLevelAwait(f"top-level await on line {where} cannot run in a script; move it into "
                                     "an async def (a tool may be async) or call asyncio.run(...)") from None
            raise Untranslatable(f"syntax error on line {where}: {msg}") from None
        code = self._current.rewrite(code, ast_guard.parse(code), self._cursor)
        lines = code_lines(code)
        for stmt, comment in sorted(self._replacements(ast_guard.parse(code), lines), key=lambda r: -r[0].lineno):
            indent = lines[stmt.lineno - 1][: stmt.col_offset]
            text = str(comment) if isinstance(comment, Code) else f"{'pass  ' if indent else ''}# {comment}"
            lines[stmt.lineno - 1 : stmt.end_lineno] = [f"{indent}{text}"]
        return "\n".join(lines)

    def _replacements(self, tree: ast.Module, lines: list[str]) -> list[tuple[ast.stmt, str]]:
        """The statements to replace, each with its replacement; raises for what cannot be dropped."""
        error = self._cursor.error
        found: list[tuple[ast.stmt, str]] = []
        covered: set[int] = set()
        in_functions = {id(node) for function in ast.walk(tree) if isinstance(function, _FUNCTIONS)
                        for stmt in function.body for node in ast.walk(stmt)}
        for stmt in ast.walk(tree):
            if isinstance(stmt, ast.Expr) and ipython_call(stmt.value):
                covered.add(id(stmt.value.func.value))  # type: ignore[attr-defined]
                call: ast.Call = stmt.value  # type: ignore[assignment]
                if id(stmt) in in_functions:
                    found.append((stmt, self._magic_lines.in_function(call)))
                else:
                    found.append((stmt, self._magic_lines.at_top(call, nested=stmt.col_offset > 0)))
        from_server = {id(n.func.value) for n in ast.walk(tree) if reads_server(n)}  # type: ignore[attr-defined]
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and is_name(node.func, "get_ipython") and id(node) not in covered:
                if id(node) in from_server:
                    raise ReadsServer
                raise error(node, "uses IPython syntax (%magic, !cmd or get_ipython()) as a value, which a script "
                            "cannot run: rewrite it in Python or tag the cell mcp-skip")
        for stmt in tree.body:
            if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
                self._futures.extend(a.name for a in stmt.names if a.name not in self._futures)
                found.append((stmt, "moved to the top of the file: " + ast.unparse(stmt)))
            elif isinstance(stmt, ast.Expr) and displays_only(stmt.value):
                what = shorten(ast.unparse(stmt))
                self._cursor.drop(f"{what} (display only)")
                found.append((stmt, f"dropped (display only): {what}"))
            for name in set(bound_names(stmt)) & set(_RESERVED):
                raise error(stmt, f"binds the name {name!r}, which the exported script uses {_RESERVED[name]}; "
                            "rename it or tag the cell mcp-skip")
        for node in ast.walk(tree):
            # A server built in code would be a second one (and its run() would block the script's).
            if isinstance(node, ast.Call) and (is_name(node.func, "MCPServer") or (
                    isinstance(node.func, ast.Attribute) and node.func.attr == "MCPServer")):
                raise error(node, "builds an MCPServer of its own; the exported script makes its server from the "
                            "%%mcp_* cells. Tag this cell mcp-skip, or, for a notebook written in script style, "
                            "copy its cells into a .py file instead of exporting")
        self._bindings.check(tree, self._cursor)
        starts = [s.lineno for s in ast.walk(tree) if isinstance(s, ast.stmt)]
        for stmt, _ in found:
            sharing = sum(stmt.lineno <= n <= (stmt.end_lineno or stmt.lineno) for n in starts)
            if lines[stmt.lineno - 1][: stmt.col_offset].strip() or sharing > 1:
                raise error(stmt, "mixes IPython-only code with other statements")
        return found
