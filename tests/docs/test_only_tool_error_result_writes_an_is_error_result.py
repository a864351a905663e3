"""One way to build a tool-error result: every ``{"content": [...], "isError": true}`` the server answers with is
:func:`nanohubmcp.protocol.content.tool_error_result`'s, which cuts a long text for the client (an exception
carrying a simulator's stderr, a task's failure text) as every other sent text is. Review r42 (R42-5) found the
dict written by hand in five more places (a kept result too large, a cancelled or failed task, a job's result
over the store's bound, a listen's task too large for one event, a call the server's stop cut short)."""

from __future__ import annotations

import ast
from pathlib import Path

import nanohubmcp

PACKAGE = Path(nanohubmcp.__file__).parent
HOME = PACKAGE / "protocol" / "content.py"


def _literal_error_results(path: Path) -> list[int]:
    """Lines of ``path`` holding a dict literal whose ``isError`` is ``True``."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Dict)
        and any(isinstance(key, ast.Constant) and key.value == "isError"
                and isinstance(value, ast.Constant) and value.value is True
                for key, value in zip(node.keys, node.values, strict=True))
    ]


def test_no_module_but_protocol_content_writes_an_is_error_result() -> None:
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{line}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != HOME
        for line in _literal_error_results(path)
    ]
    assert not found, f"isError results written by hand; use protocol.content.tool_error_result: {found}"
    assert _literal_error_results(HOME), "the scan no longer finds the helper's own result: it checks nothing"
