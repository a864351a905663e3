"""One error map: every JSON-RPC error object (``{"code": ..., "message": ...}``) the package sends or
raises is built by ``nanohubmcp.errors`` (``error_response``, ``to_error_object``, an exception's
``to_error``), never written as a dict literal elsewhere. Review r42 (R42-4) found the -32800 cancel answer,
the -32603 stand-ins for an unsendable answer, a relayed stream's -32603 and the test client's answers
written by hand, each beside the map."""

from __future__ import annotations

import ast
from pathlib import Path

import nanohubmcp

PACKAGE = Path(nanohubmcp.__file__).parent


def _literal_error_objects(path: Path) -> list[int]:
    """Lines of ``path`` holding a dict literal or ``dict(...)`` call with both ``code`` and ``message``."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Dict):
            keys = {key.value for key in node.keys if isinstance(key, ast.Constant)}
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
            keys = {keyword.arg for keyword in node.keywords}
        else:
            continue
        if {"code", "message"} <= keys:
            lines.append(node.lineno)
    return lines


def test_no_module_outside_errors_writes_a_json_rpc_error_object() -> None:
    errors_package = PACKAGE / "errors"
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{line}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if errors_package not in path.parents
        for line in _literal_error_objects(path)
    ]
    assert not found, ("JSON-RPC error objects written by hand; build them with nanohubmcp.errors' "
                       f"error_response / to_error_object from an exception: {found}")
