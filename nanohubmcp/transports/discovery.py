"""Discovery documents built from the server's own metadata, and the routes that serve them.

- ``server.json`` of the MCP Registry (schema 2025-12-11): written by ``nanohubmcp server-json APP``.
- The Server Card (SEP-2127, draft; media type ``application/mcp-server-card+json``), served at
  ``<streamable-http-url>/server-card``, i.e. ``<base>mcp/server-card``.
- The MCP Catalog at ``<base>.well-known/mcp/catalog.json`` and the AI Catalog at
  ``<base>.well-known/ai-catalog.json`` (``application/ai-catalog+json``), each with one entry pointing
  at the card.

``<base>`` is the public base URL (the weber URL on nanoHUB; the listening address plus ``path_prefix``
elsewhere). These routes sit behind authorization like every other route when it is configured, and
the card's remotes then declare the ``Authorization`` header they need (the catalogs' entries have no
member for it).
nanoHUB's own ``/.well-known/mcp.json`` (``documents.py``) is unchanged.

The name each document gives the server is :mod:`.registry_name`'s. The routes' handlers are imported
with their first request (``routes.HandlerAtFirstUse``).
"""

from __future__ import annotations

import copy
import ipaddress
import logging
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from .._version import __version__
from ..auth.verifiers import MCP_TOKEN_ENV
from ..errors import ConfigurationError
from ..protocol import jsonenc, versions
from .plain_errors import PlainErrorsHandler
from .registry_name import registry_name

if TYPE_CHECKING:
    from ..server.described import Described

SERVER_JSON_SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
SERVER_CARD_SCHEMA = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
SERVER_CARD_TYPE = "application/mcp-server-card+json"
AI_CATALOG_TYPE = "application/ai-catalog+json"
MCP_CATALOG_SPEC_VERSION = "draft"
AI_CATALOG_SPEC_VERSION = "1.0"
PACKAGE = "nanohub-mcp"
SERVER_CARD_PATH = "mcp/server-card"
MCP_CATALOG_PATH = ".well-known/mcp/catalog.json"
AI_CATALOG_PATH = ".well-known/ai-catalog.json"

TOKEN_VARIABLE: dict[str, Any] = {
    "name": MCP_TOKEN_ENV,
    "description": "Your bearer token for this server, which requires authorization: over stdio it starts only "
    "with a token it accepts here (checked once, before serving)",
    "isRequired": True,
    "isSecret": True,
}
"""The stdio package's environment variable of a server with ``auth=`` (``nanohubmcp run`` refuses to start
without it)."""
TOKEN_HEADER: dict[str, Any] = {
    "name": "Authorization",
    "description": "Your bearer token for this server, which requires authorization (401 without it)",
    "value": "Bearer {token}",
    "variables": {"token": {"description": "your bearer token for this server", "isRequired": True,
                            "isSecret": True}},
    "isRequired": True,
    "isSecret": True,
}
"""A remote's header of a server with ``auth=`` (every HTTP route answers 401 without it), in
``server.json`` and in the running server's card."""

log = logging.getLogger("nanohubmcp")
_WARNED: set[str] = set()  # what served_name warned of, once each

_DESCRIPTION_LIMIT = 100


def served_name(server: Described, base: str) -> str:
    """The name the card and the catalogs give: :func:`registry_name`'s, or, when
    ``NANOHUBMCP_REGISTRY_NAME`` was made malformed after serving started (:func:`check_name_variable`
    refused it before), the derived name with a warning in the log: a document route never fails on it."""
    try:
        return registry_name(server.name, base)
    except ConfigurationError as exc:
        if str(exc) not in _WARNED:
            _WARNED.add(str(exc))
            log.warning("%s; the server card and catalogs use the derived name", exc)
        return registry_name(server.name, base, variable=False)


def is_public(base: str | None) -> bool:
    """True when ``base`` is an absolute http(s) URL of a host other than loopback (a remote)."""
    if not base:
        return False
    parts = urlsplit(base)
    host = parts.hostname or ""
    if parts.scheme not in ("http", "https") or not host or host == "localhost":
        return False
    try:
        return not ipaddress.ip_address(host).is_loopback
    except ValueError:
        return True


def description(server: Described) -> str:
    """1-100 characters: the first line of the server's ``instructions``, else a line naming the server."""
    first = " ".join((server.instructions or "").strip().splitlines()[:1]).strip()
    text = first or f"MCP server {server.name} (Python functions served with nanohubmcp)"
    return text if len(text) <= _DESCRIPTION_LIMIT else text[: _DESCRIPTION_LIMIT - 1].rstrip() + "…"


def _title(server: Described) -> str:
    return str(server.name)[:100] or "MCP server"


def remotes(base: str, *, protocol_versions: bool = False) -> list[dict[str, Any]]:
    """The Streamable HTTP and legacy SSE endpoints under ``base`` (ending in ``/``).

    With ``protocol_versions``, each says what it negotiates: Streamable HTTP every version this server
    speaks; SSE the versions ``initialize`` negotiates over it (2024-11-05 through 2025-11-25; the
    2026-07-28 transports are stdio and Streamable HTTP only). Source: SEP-2127 draft,
    ``remotes[].supportedProtocolVersions``; MCP 2026-07-28, Basic § Transports.
    """
    found: list[dict[str, Any]] = [
        {"type": "streamable-http", "url": f"{base}mcp"},
        {"type": "sse", "url": f"{base}sse"},
    ]
    if protocol_versions:
        found[0]["supportedProtocolVersions"] = list(versions.SUPPORTED_VERSIONS)
        found[1]["supportedProtocolVersions"] = list(versions.HANDSHAKE_VERSIONS)
    return found


def server_json(
    server: Described,
    *,
    app: str,
    base: str | None = None,
    name: str | None = None,
    named_at: str | None = None,
    http_token: bool = False,
    stdio_token: bool = False,
    command: str = "run",
) -> dict[str, Any]:
    """The MCP Registry's ``server.json`` for ``server``, run from the file ``app``.

    Its package is ``pypi``/``nanohub-mcp`` started as ``nanohub-mcp run APP --transport stdio`` (``command``
    ``"rappture"`` or ``"sim2l"``: ``nanohub-mcp rappture tool.xml ...``, ``nanohub-mcp sim2l NOTEBOOK ...``; the
    runtime hint ``uvx``: a client runs the package's command of the package's own name, which the
    distribution installs beside ``nanohubmcp``); a public
    ``base`` (the weber URL on nanoHUB) adds ``remotes`` (Streamable HTTP and legacy SSE). The name is
    :func:`registry_name`'s for ``base``, or for ``named_at`` when no ``base`` is given (a tool session's
    weber URL: the running server's card is named after it, but it is not listed in ``remotes``).
    ``stdio_token`` (the app's server has ``auth=``): the package declares the required, secret ``MCP_TOKEN``
    environment variable it starts only with; ``http_token`` (that, or the server must not serve HTTP without a
    token: ``require_token``, the file's own ``server.run(token=...)``): each remote its ``Authorization`` header
    (schema 2025-12-11: ``Package.environmentVariables``, ``*Transport.headers``, both ``KeyValueInput``); both as
    :func:`~nanohubmcp.serving.runners.token_required` reads them.
    """
    document: dict[str, Any] = {
        "$schema": SERVER_JSON_SCHEMA,
        "name": registry_name(server.name, base or named_at, name),
        "title": _title(server),
        "description": description(server),
        "version": server.version,
        "packages": [
            {
                "registryType": "pypi",
                "identifier": PACKAGE,
                "version": __version__,
                "runtimeHint": "uvx",
                "transport": {"type": "stdio"},
                "packageArguments": [
                    {"type": "positional", "value": command},
                    {"type": "positional", "valueHint": "app" if command == "run" else "path", "value": app},
                    {"type": "named", "name": "--transport", "value": "stdio"},
                ],
            }
        ],
    }
    if stdio_token:
        document["packages"][0]["environmentVariables"] = [copy.deepcopy(TOKEN_VARIABLE)]
    if base and is_public(base):
        document["remotes"] = remotes(base)
        if http_token:
            for remote in document["remotes"]:
                remote["headers"] = [copy.deepcopy(TOKEN_HEADER)]
    return document


def server_card(server: Described, base: str, *, token_required: bool = False) -> dict[str, Any]:
    """The Server Card of the server reached at ``base``: identity, remotes, protocol versions.

    ``token_required`` (the server checks a bearer token): each remote declares the ``Authorization``
    header it needs, as ``server.json``'s remotes do (SEP-2127 draft: ``remotes[].headers``, a list of
    ``KeyValueInput``, the registry's form) — a required, secret input, never a token's value.
    """
    found = remotes(base, protocol_versions=True)
    if token_required:
        for remote in found:
            remote["headers"] = [copy.deepcopy(TOKEN_HEADER)]
    return {
        "$schema": SERVER_CARD_SCHEMA,
        "name": served_name(server, base),
        "title": _title(server),
        "description": description(server),
        "version": server.version,
        "remotes": found,
    }


def _catalog_entry(server: Described, base: str) -> dict[str, Any]:
    namespace, _, suffix = served_name(server, base).partition("/")
    publisher = ".".join(reversed(namespace.split(".")))
    return {
        "identifier": f"urn:air:{publisher}:{suffix}",
        "displayName": _title(server),
        "type": SERVER_CARD_TYPE,
        "url": f"{base}{SERVER_CARD_PATH}",
    }


def mcp_catalog(server: Described, base: str) -> dict[str, Any]:
    """The MCP Catalog (``/.well-known/mcp/catalog.json``): one entry, this server's card.

    A catalog entry has no member for what connecting needs (the draft's entry is ``identifier``,
    ``displayName``, ``type`` and ``url`` only): a server's bearer token requirement is its card's to
    state, so the catalogs are the same with and without authorization."""
    return {"specVersion": MCP_CATALOG_SPEC_VERSION, "entries": [_catalog_entry(server, base)]}


def ai_catalog(server: Described, base: str) -> dict[str, Any]:
    """The AI Catalog (``/.well-known/ai-catalog.json``): the MCP Catalog's entry, as the AI Catalog allows."""
    return {"specVersion": AI_CATALOG_SPEC_VERSION, "entries": [_catalog_entry(server, base)]}


class _DocumentHandler(PlainErrorsHandler):
    """A JSON document with its own media type, cacheable for five minutes (by shared caches only when
    it is the same for every client: :meth:`~.base.BaseHandler.cache_control`); ``HEAD`` answers the
    ``GET``'s status and headers without the body (RFC 9110 § 9.3.2), other methods 405."""

    media_type = "application/json"

    def build(self, base: str) -> dict[str, Any]:
        raise NotImplementedError

    def get(self) -> None:
        if self._finished:
            return
        self.set_status(200)
        self.set_header("Content-Type", self.media_type)
        self.set_header("Cache-Control", self.cache_control())
        self.finish(jsonenc.dumpb(self.build(self.public_base())))

    head = get  # Tornado sends no body for HEAD (the Content-Length stays the GET's)


class ServerCardHandler(_DocumentHandler):
    """``GET <base>mcp/server-card``."""

    media_type = SERVER_CARD_TYPE

    def build(self, base: str) -> dict[str, Any]:
        return server_card(self.connection.described, base, token_required=self.config.auth is not None)


class MCPCatalogHandler(_DocumentHandler):
    """``GET <base>.well-known/mcp/catalog.json``."""

    def build(self, base: str) -> dict[str, Any]:
        return mcp_catalog(self.connection.described, base)


class AICatalogHandler(_DocumentHandler):
    """``GET <base>.well-known/ai-catalog.json``."""

    media_type = AI_CATALOG_TYPE

    def build(self, base: str) -> dict[str, Any]:
        return ai_catalog(self.connection.described, base)
