"""No module of the package reaches for a private name of ``asyncio`` (``asyncio._get_running_loop``): the
public API says the same (``asyncio.get_running_loop`` raises RuntimeError off a loop), and a private
name may change in any Python release (review r20, L10: ``results.deferred.on_loop`` used one).
"""

from __future__ import annotations

import ast
from pathlib import Path

import nanohubmcp

PACKAGE = Path(nanohubmcp.__file__).parent


def _private_uses(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").partition(".")[0] == "asyncio":
            names = [alias.name for alias in node.names]
            parts = [*(node.module or "").split("."), *names]
            found += [f"from {node.module} import {name}" for name in names if any(p.startswith("_") for p in parts)]
        elif isinstance(node, ast.Attribute):
            chain = [node.attr]
            inner = node.value
            while isinstance(inner, ast.Attribute):
                chain.insert(0, inner.attr)
                inner = inner.value
            if isinstance(inner, ast.Name) and inner.id == "asyncio" and any(p.startswith("_") for p in chain):
                found.append(f"asyncio.{'.'.join(chain)} (line {node.lineno})")
    return found


def test_no_module_uses_a_private_name_of_asyncio() -> None:
    uses = {
        str(path.relative_to(PACKAGE)): found
        for path in sorted(PACKAGE.rglob("*.py"))
        if (found := _private_uses(ast.parse(path.read_text(encoding="utf-8"))))
    }
    assert not uses, uses
