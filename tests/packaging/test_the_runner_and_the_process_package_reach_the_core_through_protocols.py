"""The runner (``serving/runner``) and the process around a serve (``processes/``) use the server's core through
protocols of what they use (``serving/servable.Running``, ``processes/stopping.Stopping``), never through the
server's whole core. Review r42 (R42-8) found the runner reaching through ``self.server.core`` for the state's
first read, ``detach``, the jobs' ``process_ending()`` and the registry, and the drain and the exit typed against
``ServerCore``. That this package names no ``ServerCore`` at all is an import contract in ``pyproject.toml``
(``tests/packaging/test_the_layers_hold.py``); this scan keeps the runner from reaching through the server's
``core`` attribute again, where an import contract cannot see it."""

from __future__ import annotations

import ast
from pathlib import Path

import nanohubmcp

PACKAGE = Path(nanohubmcp.__file__).parent
MODULES = [PACKAGE / "serving" / "runner.py", *sorted((PACKAGE / "processes").glob("*.py"))]


def _through_core(tree: ast.AST) -> list[int]:
    """The lines where something is read through a ``.core`` attribute (``self.server.core.detach``)."""
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) and node.value.attr == "core"]


def test_the_runner_and_the_process_package_read_nothing_through_the_servers_core() -> None:
    found = [f"{path.relative_to(PACKAGE.parent)}:{line}" for path in MODULES
             for line in _through_core(ast.parse(path.read_text(encoding="utf-8")))]
    assert not found, f"read through the server's core; use the protocol of what is used (servable.Running): {found}"


def test_a_read_through_the_core_is_found() -> None:
    tree = ast.parse("self.server.core.prepare_state()\ncore = self._core\nserver.core.registry.tools\n")
    assert _through_core(tree) == [1, 3]
