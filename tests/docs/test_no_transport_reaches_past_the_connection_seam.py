"""The transports speak to the server through the connection seam (``server/connection.py``: ``Connection``, and
what it offers to read: ``described``, ``stopping``, ``store_trouble``), never through ``ServerCore``: no module
in ``transports/`` imports ``nanohubmcp.server.core`` or names ``ServerCore``, and none reads a ``.core``
attribute (the core behind a server or a connection) but the few that start and stop the core they serve.
Review r42 (R42-2) found eight modules typed against the core or reaching into it: the handler every route
shares held ``core: ServerCore``, the documents read the core's registry and dispatcher, the readiness probe its
replication, the access log its shutdown, and REST refused an unknown tool itself, before the call pipeline.

The allowed exceptions, each with its reason, are listed below; keep them few."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import nanohubmcp

TRANSPORTS = Path(nanohubmcp.__file__).parent / "transports"

NAMES_THE_CORE = {
    "served.py": "ServedServer.core, the core stdio and the runner (serving/runner) start, drain and stop: typed "
                 "ServerCore while processes/drain and processes/process_exit take one",
}
"""Modules that may import ``server.core`` or name ``ServerCore``, and why."""

READS_A_CORE = {
    "routes.py": "builds each route's Connection from the server's core (the one place HTTP routes get it)",
    "stdio.py": "starts, drains and stops the core it serves (attach, close, detach), as serving/runner does",
    "memory.py": "the in-process transport starts and stops the core of its server",
}
"""Modules that may read a ``.core`` attribute, and why."""


def _modules() -> list[Path]:
    return sorted(TRANSPORTS.rglob("*.py"))


def _names_the_core(tree: ast.AST) -> list[int]:
    """Lines importing ``server.core`` (absolutely or relatively) or naming ``ServerCore``."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module, names = node.module or "", {alias.name for alias in node.names}
            if module.endswith("server.core") or (module.endswith("server") and "core" in names) \
                    or "ServerCore" in names:
                lines.append(node.lineno)
        elif isinstance(node, ast.Import):
            if any(alias.name.endswith("server.core") for alias in node.names):
                lines.append(node.lineno)
        elif (isinstance(node, ast.Name) and node.id == "ServerCore") or (
                isinstance(node, ast.Attribute) and node.attr == "ServerCore"):
            lines.append(node.lineno)
    return lines


def _reads_a_core(tree: ast.AST) -> list[int]:
    """Lines reading ``<something>.core``."""
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr == "core" and isinstance(node.ctx, ast.Load)]


def _found(check: Callable[[ast.AST], list[int]], allowed: dict[str, str]) -> list[str]:
    found = []
    for path in _modules():
        relative = path.relative_to(TRANSPORTS).as_posix()
        if relative in allowed:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"transports/{relative}:{line}" for line in check(tree)]
    return found


def test_no_transport_imports_or_names_the_server_core() -> None:
    found = _found(_names_the_core, NAMES_THE_CORE)
    assert not found, ("a transport typed against ServerCore: use the route's Connection (serving, and "
                       f"connection.described / stopping / store_trouble for what it reads): {found}")


def test_no_transport_reads_the_core_behind_a_server_or_a_connection() -> None:
    found = _found(_reads_a_core, READS_A_CORE)
    assert not found, f"a transport reaching past its Connection into the core: {found}"


def test_every_allowed_exception_is_still_needed() -> None:
    for allowed, check in ((NAMES_THE_CORE, _names_the_core), (READS_A_CORE, _reads_a_core)):
        for relative in allowed:
            path = TRANSPORTS / relative
            if path.exists():  # (a module moved out of transports/ needs no exception)
                assert check(ast.parse(path.read_text(encoding="utf-8"))), (
                    f"transports/{relative} no longer needs its exception: remove it from the list")
