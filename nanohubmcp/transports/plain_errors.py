"""The routes that are no JSON-RPC endpoint (the documents, the RFC 9728 metadata, unknown paths): their handlers'
base, :class:`PlainErrorsHandler`, and their error body ``{"error": message}`` (:func:`plain_error`)."""

from __future__ import annotations

from typing import Any

from ..errors import NanohubMCPError
from .base import BaseHandler

__all__ = ["PlainErrorsHandler", "plain_error"]


def plain_error(exc: NanohubMCPError) -> dict[str, str]:
    """The body ``{"error": message}`` of a refusal on a route that is no JSON-RPC endpoint."""
    return {"error": str(exc)}


class PlainErrorsHandler(BaseHandler):
    """The handler of a route that is no JSON-RPC endpoint (the documents, the RFC 9728 metadata, unknown paths):
    each of its refusals (401, 403, 421, 503) has the shape of its 404 and 405 (``write_error``),
    :func:`plain_error`."""

    def error_body(self, exc: NanohubMCPError, request_id: Any = None) -> Any:
        """``{"error": message}`` (:func:`plain_error`), whatever ``request_id``."""
        return plain_error(exc)
