"""``Principal``: who is calling, as the transport's verifier established it.

The transport checks the bearer token at the edge (MCP 2025-11-25, Authorization: the server
is an OAuth 2.1 resource server) and puts the resulting principal in the request context; the
core never sees headers or tokens. With no authorization configured the principal is None, and
this module is not imported (a frozen dataclass costs ~4 M instructions to make): what a server
reads of scopes without a principal is :mod:`.scopes`', and the transports and verifiers reach
the class through ``auth.verifiers.principal_class()``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .scopes import parse_scopes


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
