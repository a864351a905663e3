"""``current().server`` in a notebook's code, rewritten to the exported script's ``server``.

A notebook of ``%%mcp_*`` cells reaches its server as ``current().server`` (``from
nanohubmcp.jupyter.extension import current``), to add middleware (``@current().server.middleware``) or call a
tool (``await current().server.call_async(...)``). A script has no kernel session: there ``current()`` is None,
and the script stopped at start with ``AttributeError: 'NoneType' object has no attribute 'server'``.
:meth:`CurrentServer.rewrite` turns each ``current().server`` into ``server`` (the script's module-level
server, which the ``%%mcp_*`` cells register on), however ``current`` was imported (``from ... import current
as cur``, ``import nanohubmcp.jupyter.extension as ext`` then ``ext.current()``, the full dotted name), in the
cell that imports it or a later one. It refuses, with :class:`.export_outcomes.Untranslatable`, a ``current()``
used otherwise (the session itself: ``current().stop()``), which a script has not, and a rewrite a binding of
``server`` in the same cell would make read something else.

What the rest of a cell's code becomes is :mod:`.export_statements`'.
"""

from __future__ import annotations

import ast

from .export_outcomes import Cursor
from .script_text import code_lines

__all__ = ["CurrentServer"]

_MODULE = "nanohubmcp.jupyter.extension"


class CurrentServer:
    """The names the notebook's code has for ``current`` (and its module) so far, cell after cell."""

    def __init__(self) -> None:
        self._functions: set[str] = set()
        """Dotted names bound to ``nanohubmcp.jupyter.extension.current`` (``current``, ``ext.current``...)."""
        self._modules: set[str] = {_MODULE}

    def rewrite(self, code: str, tree: ast.Module, cursor: Cursor) -> str:
        """``code`` (whose parse is ``tree``) with each ``current().server`` replaced by ``server``.

        Raises:
            Untranslatable: ``current()`` used other than as ``current().server``, or the cell binds ``server``
                where a rewrite would read it: one line naming the line of the cell.
        """
        self._learn(tree)
        calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and self._is_current(node.func)]
        if not calls:
            return code
        servers = {id(node.value): node for node in ast.walk(tree)
                   if isinstance(node, ast.Attribute) and node.attr == "server" and isinstance(node.value, ast.Call)}
        for call in calls:
            if id(call) not in servers or call.args or call.keywords:
                raise cursor.error(call, "uses current() (the notebook's kernel session), which the exported script "
                                   "has not; use current().server (it becomes the script's server) or tag the cell "
                                   "mcp-skip")
        binding = next((node for node in ast.walk(tree) if _binds_server(node)), None)
        if binding is not None:
            raise cursor.error(binding, "binds the name 'server', and current().server in this cell becomes the "
                               "script's server: rename it or tag the cell mcp-skip")
        lines = [line.encode() for line in code_lines(code)]  # ast offsets count UTF-8 bytes
        spans = sorted((servers[id(call)] for call in calls), key=lambda n: (n.lineno, n.col_offset), reverse=True)
        for node in spans:
            first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
            lines[first : last + 1] = [lines[first][: node.col_offset] + b"server" + lines[last][node.end_col_offset:]]
        return "\n".join(line.decode() for line in lines)

    def _learn(self, tree: ast.Module) -> None:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == _MODULE:
                        self._modules.add(alias.asname or _MODULE)
            elif isinstance(node, ast.ImportFrom) and not node.level:
                for alias in node.names:
                    if f"{node.module}.{alias.name}" == _MODULE:
                        self._modules.add(alias.asname or alias.name)
                    elif node.module == _MODULE and alias.name == "current":
                        self._functions.add(alias.asname or "current")

    def _is_current(self, func: ast.expr) -> bool:
        name = _dotted(func)
        if name is None:
            return False
        module, _, last = name.rpartition(".")
        return name in self._functions or (last == "current" and module in self._modules)


def _dotted(node: ast.expr) -> str | None:
    """``a.b.c`` for a chain of names and attributes, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


def _binds_server(node: ast.AST) -> bool:
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
        return node.id == "server"
    if isinstance(node, ast.arg):
        return node.arg == "server"
    if isinstance(node, ast.alias):
        return (node.asname or node.name.split(".")[0]) == "server"
    return isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == "server"
