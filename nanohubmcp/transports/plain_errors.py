"""The error bodies ``{"error": message}`` of the routes that are no JSON-RPC endpoint."""

from __future__ import annotations

from typing import Any

from ..errors import NanohubMCPError

__all__ = ["PlainErrors", "plain_error"]


class PlainErrors:
    """Error bodies ``{"error": message}``, for the routes that are no JSON-RPC endpoint (the documents,
    the RFC 9728 metadata, unknown paths): each of their refusals — 401, 403, 421, 503 — has the shape
    of their 404 and 405 (``write_error``). Listed before :class:`~.base.BaseHandler` among the bases."""

    def error_body(self, exc: NanohubMCPError, request_id: Any = None) -> Any:
        return plain_error(exc)


def plain_error(exc: NanohubMCPError) -> dict[str, str]:
    """The body ``{"error": message}`` of a refusal on a route that is no JSON-RPC endpoint."""
    return {"error": str(exc)}
