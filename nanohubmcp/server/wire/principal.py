"""``Principal``: who is calling, as the transport's verifier established it.

The transport checks the bearer token at the edge (MCP 2025-11-25, Authorization: the server
is an OAuth 2.1 resource server) and puts the resulting principal in the request context; the
core never sees headers or tokens. With no authorization configured the principal is None.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ...errors import InsufficientScope


@dataclass(frozen=True)
class Principal:
    """An authenticated caller.

    Attributes:
        subject: a stable identifier of the caller (a JWT's ``sub``, a static token's name);
            jobs and large results are owned by it.
        scopes: the OAuth scopes the token grants (RFC 6749 § 3.3).
        claims: everything the verifier knows about the token (a JWT's decoded claims);
            read-only by convention.
    """

    subject: str
    scopes: frozenset[str] = field(default_factory=frozenset)
    claims: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.subject, str) or not self.subject:
            raise ValueError("Principal.subject must be a non-empty string")
        if not isinstance(self.scopes, frozenset):
            object.__setattr__(self, "scopes", frozenset(parse_scopes(self.scopes)))

    def has_scopes(self, required: Iterable[str]) -> bool:
        """True when every scope in ``required`` is granted."""
        return self.scopes.issuperset(required)

    def missing_scopes(self, required: Iterable[str]) -> list[str]:
        """The scopes of ``required`` not granted, in their given order."""
        return [scope for scope in required if scope not in self.scopes]


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


def check_tool_scopes(tool: ScopedTool | None, principal: Principal | None) -> None:
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
