"""Lifecycle and utilities: ``initialize``, ``ping``, ``logging/setLevel``, cancellation.

Source: MCP 2025-11-25, Basic § Lifecycle, § Utilities (Ping, Cancellation), Server §
Utilities § Logging.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...errors import InvalidParams
from ...protocol import jsonrpc, versions
from ...protocol.jsonrpc import json_kind
from ...protocol.message_values import show
from ..wire.client_facts import kept_capabilities, kept_client_info
from ..wire.request import LOG_LEVELS, RequestContext

if TYPE_CHECKING:
    from ..services import Identity, Replicated


async def initialize(core: Identity, request: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """``initialize``: negotiate the version, remember the client, answer our capabilities.

    The transport decides whether a session is needed; when it gave the request an
    ``open_session`` function a new session is minted here and left in ``request.opened_session``.
    The session keeps the client's capabilities and a few fields of its ``clientInfo``
    (:mod:`~nanohubmcp.server.wire.client_facts`).

    A missing (or null) ``protocolVersion``, or a string naming no version this server speaks, is answered
    with the latest handshake-era version (MCP 2025-11-25, Basic § Lifecycle § Version Negotiation).

    Raises:
        InvalidParams: ``params.capabilities`` is over
            :data:`~nanohubmcp.server.wire.client_facts.MAX_CLIENT_CAPABILITIES_BYTES` of JSON;
            ``params.protocolVersion`` is no string (the schema's ``InitializeRequestParams``), -32602.

    .. versionchanged:: 1.0
       Capabilities over 16 KiB are refused; of ``clientInfo`` only ``name``, ``title`` and
       ``version`` are kept; a ``protocolVersion`` other than a string (a number, an object) is refused
       (it was answered as an unknown version).
    """
    asked = params.get("protocolVersion")
    if asked is not None and not isinstance(asked, str):
        raise InvalidParams(f'initialize params.protocolVersion must be a string such as "{versions.LATEST_HANDSHAKE}" '
                            f"(a version this server speaks: {', '.join(versions.HANDSHAKE_VERSIONS)}), "
                            f"not {json_kind(asked)}")
    version = versions.negotiate(asked)
    caps = kept_capabilities(params.get("capabilities"))  # (refused before a session is opened)
    info = kept_client_info(params.get("clientInfo"))
    session = request.session
    if session is None and request.open_session is not None:
        session = request.opened_session = request.open_session(version)
    if session is not None:
        session.version = version
        session.client_capabilities = caps
        session.client_info = info
    result: dict[str, Any] = {
        "protocolVersion": version,
        "capabilities": core.capabilities(version),
        "serverInfo": core.server_info(),
    }
    if core.instructions:
        result["instructions"] = core.instructions
    return result


async def ping(core: object, request: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """``ping`` → ``{}``."""
    return {}


async def set_level(core: object, request: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """``logging/setLevel``: the session's minimum level for ``notifications/message``."""
    level = params.get("level")
    if level not in LOG_LEVELS:
        raise InvalidParams(f"Invalid log level {show(level)}; use one of {', '.join(LOG_LEVELS)}")
    if request.session is not None:
        request.session.log_level = level
    return {}


async def initialized(core: object, request: RequestContext, params: dict[str, Any]) -> None:
    """``notifications/initialized``."""
    if request.session is not None:
        request.session.initialized = True


async def cancelled(core: Replicated, request: RequestContext, params: dict[str, Any]) -> None:
    """``notifications/cancelled``: cancels only the sender's own in-flight request.

    ``requestId`` must be a JSON-RPC id (string or integer); anything else names no request
    and is ignored, as a notification cannot be answered (``true`` never means id 1).
    """
    session = request.session
    request_id = params.get("requestId")
    if session is None or not jsonrpc.valid_id(request_id):
        return
    target = session.in_flight.get(request_id)
    reason = params.get("reason")
    if target is not None:
        target.cancel(reason if isinstance(reason, str) else "cancelled by the client", withdrawn=True)
    elif core.replication is not None:  # the request may run on another process of this server
        core.replication.cancel_elsewhere(session, request_id, reason)
