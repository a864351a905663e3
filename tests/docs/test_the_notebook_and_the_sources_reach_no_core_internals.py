"""The layers built on a server — the notebook (``jupyter/``), the sources of tools (``sources/``), the hub's
launcher (``nanohub/``) and ``hub_app.py`` — use what ``server.runtime`` names (``nanohubmcp/runtime.py``), never
the core's parts reached through ``server.core``.

Review r42 (R42-7) found them reading ``server.core.registry``, ``.jobs.listing``, ``.provenance.find``,
``.executor``, ``.job_runner.name``, ``.stuck_calls``, ``.core_jobs`` and ``.first_use``, assigning
``server.core.tool_timeout`` and calling ``server.core.result_options.update``, and ``panel_messages`` typing
its server's ``core`` as ``ServerCore``. (An ``ast`` scan: a module there names ``ServerCore``, imports from
``server/core``, reads an attribute ``core`` of anything but ``IPython``, or asks ``getattr(x, "core")``.)
"""

from __future__ import annotations

import ast
from pathlib import Path

import nanohubmcp

PACKAGE = Path(nanohubmcp.__file__).parent
SCANNED = ("jupyter", "sources", "nanohub", "hub_app.py")

ALLOWED: dict[str, str] = {}
"""``path:line`` of a reach the scan lets pass, and why. None today: every need has a ``Runtime`` member."""


def _modules() -> list[Path]:
    found: list[Path] = []
    for name in SCANNED:
        path = PACKAGE / name
        found.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path])
    return found


def _reaches(tree: ast.AST) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
        if name == "ServerCore":
            found.append((node.lineno, "names ServerCore"))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-2:] == ["server", "core"]:
            found.append((node.lineno, f"imports {', '.join(alias.name for alias in node.names)} from server.core"))
        elif isinstance(node, ast.Attribute) and node.attr == "core" \
                and not (isinstance(node.value, ast.Name) and node.value.id == "IPython"):
            found.append((node.lineno, f"reads {ast.unparse(node)}"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr") \
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and node.args[1].value == "core":
            found.append((node.lineno, f"asks {ast.unparse(node)}"))
    return found


def test_the_scan_covers_the_layers_it_names() -> None:
    modules = {path.relative_to(PACKAGE).parts[0] for path in _modules()}
    assert modules == set(SCANNED)


def test_no_layer_built_on_a_server_reaches_through_its_core() -> None:
    offenders = []
    for path in _modules():
        where = path.relative_to(PACKAGE).as_posix()
        for line, what in _reaches(ast.parse(path.read_text(encoding="utf-8"))):
            if f"{where}:{line}" not in ALLOWED:
                offenders.append(f"{where}:{line}: {what}")
    assert offenders == [], "use (or add) a member of nanohubmcp.runtime.Runtime:\n" + "\n".join(offenders)
