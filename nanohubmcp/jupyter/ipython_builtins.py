"""The names a kernel gives every cell without an import (IPython's builtins), imported by a script that reads them.

A tool calling ``display(x)`` works in the notebook, where IPython binds ``display``; in the exported script
every call of it would fail with a NameError. :func:`builtin_imports` finds the builtins the kept code reads
without binding them at its top level, and the import each needs. (A top-level ``display(x)`` is dropped as
display only, :mod:`.export_statements`: what remains is in functions' bodies.)
"""

from __future__ import annotations

import ast

from ..protocol import ast_guard
from .notebook_cells import bound_names

__all__ = ["builtin_imports"]

_BUILTINS = {"display": "from IPython.display import display"}
"""Name -> the import a script needs for it."""


def builtin_imports(blocks: list[str]) -> list[str]:
    """The import lines (with a comment) of the IPython builtins ``blocks`` (the script's code, in order)
    read without binding them at their top level, sorted by name; ``[]`` when there are none."""
    tree = ast_guard.parse("\n\n".join(blocks))
    bound = {name for stmt in tree.body for name in bound_names(stmt)}
    read = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
    return [f"{_BUILTINS[name]}  # a notebook builtin the code calls"
            for name in sorted(read & set(_BUILTINS) - bound)]
