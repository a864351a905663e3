"""MCP protocol versions: which exist, which we speak, and how an era is chosen.

A request belongs to the stateless era (2026-07-28) when its ``params._meta`` or its
``MCP-Protocol-Version`` header names that version or a later one; otherwise to the handshake era.

Source: MCP 2025-11-25, Basic § Lifecycle § Version negotiation; MCP 2026-07-28, Basic §
Versioning.
"""

from __future__ import annotations

V2024_11_05 = "2024-11-05"
V2025_03_26 = "2025-03-26"
V2025_06_18 = "2025-06-18"
V2025_11_25 = "2025-11-25"
V2026_07_28 = "2026-07-28"

HANDSHAKE_VERSIONS: tuple[str, ...] = (V2025_11_25, V2025_06_18, V2025_03_26, V2024_11_05)
"""Versions negotiated with ``initialize``, newest first."""
MODERN_VERSIONS: tuple[str, ...] = (V2026_07_28,)
"""Stateless versions carried in every request's ``_meta``, newest first."""
SUPPORTED_VERSIONS: tuple[str, ...] = MODERN_VERSIONS + HANDSHAKE_VERSIONS
"""Every version this server speaks, newest first."""

LATEST_HANDSHAKE = V2025_11_25
"""Answered to an ``initialize`` asking for an unknown or missing version."""
SESSIONLESS_DEFAULT = V2025_03_26
"""Assumed for a sessionless request with no version header (Transports § Protocol Version Header)."""


def negotiate(requested: object) -> str:
    """Return the version to answer an ``initialize`` asking for ``requested``.

    The requested version is echoed when it is a handshake-era version we speak; anything
    else (missing, unknown, not a string, or a stateless version) gets the latest
    handshake-era version, as the spec requires (a normal result, not an error).
    """
    if isinstance(requested, str) and requested in HANDSHAKE_VERSIONS:
        return requested
    return LATEST_HANDSHAKE


def is_modern(version: str) -> bool:
    """True for the stateless era (2026-07-28 and later)."""
    return version >= V2026_07_28


def at_least(version: str, other: str) -> bool:
    """True when ``version`` is ``other`` or newer (versions are ISO dates)."""
    return version >= other
