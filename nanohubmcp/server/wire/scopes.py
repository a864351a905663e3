"""Scopes: how a token's scopes are read, where a tool keeps the scopes it requires, and the check
of a call against them (:func:`check_tool_scopes`).

Apart from :class:`~.principal.Principal` so that registering a tool with ``scopes=`` and the
call pipeline's check import no dataclass: a server without authorization makes no principal.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol

from ...errors import InsufficientScope

if TYPE_CHECKING:  # for type checkers only: a Protocol class costs ~0.14 M instructions to make at import
    class ScopedTool(Protocol):
        """What the scope check reads of a tool: its ``extra`` (scopes under :data:`TOOL_SCOPES`)."""

        @property
        def name(self) -> str: ...

        @property
        def extra(self) -> dict[str, Any]: ...


def parse_scopes(value: object) -> list[str]:
    """Scopes from a space-separated string (``scope`` claim) or a list (``scp``); [] for None.

    Raises:
        ValueError: anything else (the message names the type).
    """
    if value is None:
        return []
    if isinstance(value, str):
        return value.split()
    if isinstance(value, (list, tuple, set, frozenset)) and all(isinstance(s, str) for s in value):
        return list(value)
    raise ValueError(f"scopes must be a space-separated string or a list of strings, got {type(value).__name__}")


TOOL_SCOPES = "scopes"
"""Key of a tool's required scopes in ``Tool.extra`` (``@server.tool(scopes=[...])``)."""


if TYPE_CHECKING:  # for type checkers only: a Protocol class costs ~0.14 M instructions to make at import
    class Granted(Protocol):
        """What the scope check reads of a principal (:class:`~.principal.Principal` is one)."""

        def missing_scopes(self, required: Iterable[str]) -> list[str]: ...


def check_tool_scopes(tool: ScopedTool | None, principal: Granted | None) -> None:
    """Refuse a call of ``tool`` by ``principal`` when its token lacks the tool's scopes.

    Nothing is checked without a principal (no authorization configured).

    Raises:
        InsufficientScope: naming every scope the tool requires (HTTP 403).
    """
    if tool is None or principal is None:
        return
    required = tool.extra.get(TOOL_SCOPES)
    if not required:
        return
    missing = principal.missing_scopes(required)
    if missing:
        raise InsufficientScope(
            f"Forbidden: tool {tool.name!r} needs the scope(s) {' '.join(missing)}; ask for a token with "
            f"scope {' '.join(required)!r}",
            scopes=list(required),
        )
