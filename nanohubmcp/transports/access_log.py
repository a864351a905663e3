"""What the server writes about a request in its logs: the access line, and the request as Tornado's own warning
and error lines name it, with no credential of the request in either.

The request's URI is written by :func:`logged_uri`: a credential in its query, fragment or path parameters becomes
``<redacted>`` (:func:`redacted_uri`), a legacy ``session_id`` its digest, and the configured path prefix at its
start ``<prefix>``: behind nanoHUB's weber proxy the prefix is ``/weber/<session>/<cookie>/<n>``, and that cookie
is the session's secret (the access log is the file most often pasted into a bug report). The ready banner and
``%mcp url`` print the full URL on purpose: it is the address the user needs.

Not here: which requests are refused (``gate.py``), what a client is told (``base.py``).
"""

from __future__ import annotations

import functools
import logging
import re
from typing import Any
from urllib.parse import unquote_plus

import tornado.web

from ..server.wire.sessions import session_digest
from .headers import session_query
from .url_path import spellings

__all__ = ["PREFIX_SHOWN", "logged_uri", "quiet_log", "redacted_uri", "request_summary"]

PREFIX_SHOWN = "<prefix>"
"""How a log line writes the configured path prefix at the start of a request's path."""

_ACCESS = logging.getLogger("nanohubmcp.access")


def logged_uri(uri: str, prefix: str = "") -> str:
    """``uri`` (a request's path and query, as sent) as a log line writes it: :func:`redacted_uri`, and ``prefix``
    (the configured path prefix, normal form) at the start of the path, in any spelling of it, as ``<prefix>``
    (``/weber/4242/abc123cookie/18/mcp?x=1`` → ``<prefix>/mcp?x=1``). A path that does not start with the prefix,
    ending at a segment's end, is written as it is."""
    found = _prefix_pattern(prefix).match(uri) if prefix else None
    return PREFIX_SHOWN + redacted_uri(uri[found.end():]) if found else redacted_uri(uri)


@functools.lru_cache(maxsize=8)
def _prefix_pattern(prefix: str) -> re.Pattern[str]:
    return re.compile(spellings(prefix) + r"(?=[/?#;]|\Z)")


def request_summary(handler: tornado.web.RequestHandler) -> str:
    """``METHOD <logged uri> (remote ip)``: how Tornado's own lines about a request (an ``HTTPError``'s warning, an
    uncaught exception's error) name it, with :func:`logged_uri` for the URI Tornado writes as sent."""
    request = handler.request
    return f"{request.method} {logged_uri(request.uri or '', _prefix_of(handler))} ({request.remote_ip})"


def _prefix_of(handler: tornado.web.RequestHandler) -> str:
    prefix: Any = getattr(getattr(handler, "config", None), "path_prefix", "")  # every route's handler has config
    return prefix if isinstance(prefix, str) else ""


def redacted_uri(uri: str) -> str:
    """``uri`` as the access log writes it: the value of a query parameter that is a credential
    (:func:`.redaction.is_secret_name`: ``token``, ``api-key``, ``X-Amz-Signature``...) becomes ``<redacted>``,
    and a legacy ``session_id`` (the capability to post into that session) its digest; so does a path
    parameter's (``/tools/echo;token=…``, RFC 3986 § 3.3), which no route reads but a client may send,
    and a fragment parameter's (``#access_token=…``), which a client should not send but may."""
    uri, hash_mark, fragment = uri.partition("#")
    path, mark, query = uri.partition("?")
    if ";" in path:
        path = "/".join(_redacted_segment(segment) for segment in path.split("/"))
    shown = f"{path}?{_redacted_parameters(query)}" if mark else path
    return f"{shown}#{_redacted_parameters(fragment)}" if hash_mark else shown


def _redacted_parameters(query: str) -> str:
    from .redaction import is_secret_name  # (a line of the access log: not at start)

    parts = []
    for item in query.split("&"):
        name, eq, value = item.partition("=")
        decoded = unquote_plus(name)
        if eq and decoded.lower() == "session_id":
            item = f"{name}=#{session_digest(unquote_plus(value))}"
        elif eq and is_secret_name(decoded):
            item = f"{name}=<redacted>"
        parts.append(item)
    return "&".join(parts)


def _redacted_segment(segment: str) -> str:
    from .redaction import is_secret_name

    name, *parameters = segment.split(";")
    for index, parameter in enumerate(parameters):
        key, eq, _ = parameter.partition("=")
        if eq and is_secret_name(unquote_plus(key)):
            parameters[index] = f"{key}=<redacted>"
    return ";".join((name, *parameters))


def quiet_log(handler: tornado.web.RequestHandler) -> None:
    """Access log at DEBUG (a line per request at INFO would drown a notebook's output; a 5xx at
    WARNING, but not the 503 of a request a stopping server answers); no credential of the request
    reaches it, nor the path prefix (:func:`logged_uri`)."""
    status = handler.get_status()
    logger = _ACCESS
    level = logging.WARNING if status >= 500 else logging.DEBUG
    connection = getattr(handler, "connection", None)
    if status == 503 and connection is not None and connection.stopping:
        level = logging.DEBUG  # answered so because the server stops (it said so to the client): no fault
    if logger.isEnabledFor(level):
        request = handler.request
        # A session is named by a digest of its id (the id itself is a credential).
        session_id = request.headers.get("Mcp-Session-Id") or session_query(request.query_arguments)
        tag = f" session={session_digest(session_id)}" if session_id else ""
        logger.log(level, "%d %s %s (%s) %.1fms%s", status, request.method,
                   logged_uri(request.uri or "", _prefix_of(handler)), request.remote_ip,
                   1000.0 * request.request_time(), tag)
