"""The error bodies ``{"error": message}`` of the routes that are no JSON-RPC endpoint."""

from __future__ import annotations

from typing import Any

from ..errors import NanohubMCPError

__all__ = ["plain_error", "plain_error_body"]


def plain_error(exc: NanohubMCPError) -> dict[str, str]:
    """The body ``{"error": message}`` of a refusal on a route that is no JSON-RPC endpoint."""
    return {"error": str(exc)}


def plain_error_body(handler: object, exc: NanohubMCPError, request_id: Any = None) -> Any:
    """The ``error_body`` of the routes that are no JSON-RPC endpoint (the documents, the RFC 9728 metadata,
    unknown paths), taken as their method (``error_body = plain_error_body`` in the class body): each of their
    refusals — 401, 403, 421, 503 — has the shape of their 404 and 405 (``write_error``), :func:`plain_error`."""
    return plain_error(exc)
