"""The era of a message and the protocol version in force: what every transport asks, decided once.

The connection seam's reading half (:mod:`.intake`) asks these for each message, and offers them
(:mod:`.connection`) to a transport that needs one alone: :func:`is_modern` (the stateless era, or
the handshake era), :func:`spoken_version` (an ``MCP-Protocol-Version`` header this server speaks) and
:func:`handshake_version` (the version of a handshake-era request: its session's, a header's, else
2025-03-26); :func:`in_force` answers all three in one question, for a message whose session was read
already. A 2026-07-28 request's own version is its ``_meta``'s
(:func:`~.stateless.envelope.modern_version`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import InvalidRequest
from ..protocol import versions
from ..protocol.message_values import header_as_sent, show
from ..protocol.whole_numbers import plain_spelling
from .wire.request import META_PROTOCOL_VERSION

if TYPE_CHECKING:
    from ..protocol import jsonrpc
    from .wire.sessions import Session


def is_modern(message: jsonrpc.Message | None, header_version: str | None = None) -> bool:
    """The era of a request: stateless (2026-07-28) when its ``MCP-Protocol-Version`` header names
    that date or a later one, or its ``_meta`` carries a protocol version; else the handshake era.

    Source: MCP 2026-07-28, Basic § Versioning.
    """
    if header_version and header_version not in versions.HANDSHAKE_VERSIONS and versions.names_modern(
            header_version.strip()):
        return True
    if message is None or not message.params:
        return False
    meta = message.params.get("_meta")  # what Message.meta reads, without a call on the hot path
    return isinstance(meta, dict) and META_PROTOCOL_VERSION in meta


def spoken_version(value: str | None) -> str | None:
    """The version an ``MCP-Protocol-Version`` header names (None when absent), checked to be one
    this server speaks (:func:`handshake_version` makes it the version in force).

    Raises:
        InvalidRequest: not a version this server speaks (``data: {supported, requested}``; the value
            named as the client wrote it, and a date in other digits told to be written in ASCII digits).
    """
    if value is None:
        return None
    value = value.strip()
    if value not in versions.SUPPORTED_VERSIONS:
        sent = header_as_sent(value)
        digits = not sent.isascii() and any(char.isdecimal() and not char.isascii() for char in sent)
        raise InvalidRequest(
            f"Unsupported MCP-Protocol-Version: {show(sent)}{plain_spelling(sent) if digits else ''}",
            {"supported": list(versions.SUPPORTED_VERSIONS), "requested": sent},
        )
    return value


def handshake_version(session: Session | None, header_version: str | None = None) -> versions.ProtocolVersion:
    """The version of a handshake-era request: its session's (negotiated at ``initialize``), else
    the ``MCP-Protocol-Version`` header's, else 2025-03-26 (Transports § Protocol Version Header).
    ``header_version`` must be one this server speaks (the transport refuses others)."""
    if session is not None:
        return session.version
    return versions.ProtocolVersion.of(header_version or versions.SESSIONLESS_DEFAULT)


def in_force(message: jsonrpc.Message, header_version: str | None,
             session: Session | None) -> versions.ProtocolVersion | None:
    """The era of ``message`` and, in the handshake era, the version in force, in one question: None for the
    stateless era (:func:`is_modern`; its version is its ``_meta``'s), else :func:`handshake_version` of
    ``session`` and the ``MCP-Protocol-Version`` header ``header_version`` (:func:`spoken_version`). ``session``:
    the one the message names, or None (unused in the stateless era).

    Raises:
        InvalidRequest: a handshake-era message whose header names a version this server does not speak.
    """
    if is_modern(message, header_version):
        return None
    return handshake_version(session, spoken_version(header_version))
