"""A 2026-07-28 request's envelope: the protocol version and client capabilities its ``_meta`` carries.

Owns :func:`modern_version` (the envelope, then the ``MCP-Protocol-Version`` header agreeing with
it, then the version being one this server speaks, in the spec's order), :func:`modern_envelope`
and :func:`check_modern_version`. Which era a request belongs to, and the version of a handshake-era
request, are the connection seam's (:func:`~nanohubmcp.server.connection.is_modern`,
:func:`~nanohubmcp.server.connection.handshake_version`), which calls these for every 2026-07-28
request.

Source: MCP 2026-07-28, Basic § Versioning, § Transports § Streamable HTTP (protocol version header).
"""

from __future__ import annotations

from typing import Any

from ...errors import HeaderMismatch, InvalidEnvelope, UnsupportedProtocolVersion
from ...protocol import jsonrpc, versions
from ...protocol.message_values import show
from ..wire.request import META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION

__all__ = ["check_modern_version", "modern_envelope", "modern_version"]


def modern_version(
    message: jsonrpc.Message, header_version: str | None = None, *, check_header: bool = False,
    request_id: str | int | None = None,
) -> tuple[versions.ProtocolVersion, dict[str, Any]]:
    """A 2026-07-28 request's ``(version, client capabilities)`` from its ``_meta``, checked in the
    spec's order: the envelope, then (``check_header``: HTTP) the header agreeing with it, then
    the version being one this server speaks. Each error carries ``request_id``.

    Raises:
        InvalidEnvelope: ``_meta`` lacks the version string or the capabilities object (HTTP 400).
        HeaderMismatch: ``MCP-Protocol-Version`` is missing or names another version (-32020).
        UnsupportedProtocolVersion: not a stateless version this server speaks (-32022).
    """
    version, caps = modern_envelope(message, request_id)
    if check_header:
        header = (header_version or "").strip()
        if header != version:
            raise HeaderMismatch(
                f"Header mismatch: MCP-Protocol-Version is {header or 'missing'} but _meta says {version}",
                request_id=request_id,
            )
    check_modern_version(version, request_id)
    return versions.ProtocolVersion.of(version), caps


def modern_envelope(message: jsonrpc.Message, request_id: str | int | None = None) -> tuple[str, dict[str, Any]]:
    """A 2026-07-28 request's ``(version, client capabilities)`` from its ``_meta``.

    Raises:
        InvalidEnvelope: ``_meta`` lacks the version string or the capabilities object
            (HTTP answers it 400).
    """
    meta = message.meta
    version = meta.get(META_PROTOCOL_VERSION)
    caps = meta.get(META_CLIENT_CAPABILITIES)
    if not isinstance(version, str) or not isinstance(caps, dict):
        raise InvalidEnvelope(_envelope_problem(message, version, caps), request_id=request_id)
    return version, caps


def _envelope_problem(message: jsonrpc.Message, version: object, caps: object) -> str:
    """What an :class:`InvalidEnvelope` says: what is missing or malformed, and what else is wrong
    with the request that the client should hear at once (an ``initialize``, an unsupported version)."""
    if message.method == "initialize":  # a handshake-era client sending the 2026-07-28 header
        return "Invalid params: " + versions.other_era_hint("initialize", True, False)
    raw = message.params.get("_meta") if isinstance(message.params, dict) else None
    if raw is not None and not isinstance(raw, dict):  # not "missing" members: _meta itself is no object
        return ("Invalid params: 2026-07-28 requests must carry params._meta, an object with "
                + " and ".join(f"'{name}'" for name in (META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES))
                + f"; this one's _meta is {type(raw).__name__}, not an object")
    wrong = []
    if not isinstance(version, str):
        wrong.append(f"'{META_PROTOCOL_VERSION}' (a string, e.g. \"{versions.MODERN_VERSIONS[0]}\") is "
                     + ("missing" if version is None else f"{type(version).__name__}, not a string"))
    if not isinstance(caps, dict):
        wrong.append(f"'{META_CLIENT_CAPABILITIES}' (an object; {{}} for none) is "
                     + ("missing" if caps is None else f"{type(caps).__name__}, not an object"))
    text = "Invalid params: 2026-07-28 requests must carry params._meta with " + " and ".join(
        f"'{name}'" for name in (META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES)
    ) + ": " + "; ".join(wrong)
    if isinstance(version, str) and version not in versions.MODERN_VERSIONS:
        text += (f"; and {show(version)} is not a version this server speaks per request "
                 f"({', '.join(versions.MODERN_VERSIONS)}; "
                 f"{', '.join(versions.HANDSHAKE_VERSIONS)} through initialize)")
    return text


def check_modern_version(version: str, request_id: str | int | None = None) -> None:
    """Raise -32022 unless ``version`` is a 2026-07-28-era version this server speaks."""
    if version not in versions.MODERN_VERSIONS:
        raise UnsupportedProtocolVersion(
            f"Unsupported protocol version {show(version)}; this server speaks "
            f"{', '.join(versions.MODERN_VERSIONS)} per request (and older versions through initialize)",
            {"supported": list(versions.MODERN_VERSIONS), "requested": version},
            request_id=request_id,
        )
