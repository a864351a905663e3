"""Which ``aud`` values a ``JWTVerifier`` without ``audience=`` accepts, and how a token refused for its
audience is told to the operator.

The accepted values are exact strings, compared whole (no prefix matching): the server's resource URL
(RFC 9728 ``resource``: the public URL, or the bound address, without its trailing slash), the same with
its trailing slash (the public URL as it is written on the command line and in the documents), and the
resource URL of each MCP endpoint (``<resource>/mcp``, ``<resource>/sse``).

A token refused for its audience is logged on ``nanohubmcp.auth`` at WARNING (shown with Python's
default logging) the first time its ``aud`` is seen, at INFO after that, so a client retrying one token
does not flood the log; the line names the accepted values and the token's ``aud``, never the token.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict

__all__ = ["RESOURCE_ENDPOINTS", "AudienceLog", "accepted_audiences"]

RESOURCE_ENDPOINTS = ("mcp", "sse")
"""Endpoints whose URL is also accepted as the audience."""
TOLD_KEPT = 64
"""Distinct refused ``aud`` values remembered as already told at WARNING (older ones are told again)."""


def accepted_audiences(resource: str) -> list[str]:
    """The ``aud`` values accepted for the resource URL ``resource`` (no trailing slash).

    Example:
        >>> accepted_audiences("https://tools.example.org/lab")  # doctest: +NORMALIZE_WHITESPACE
        ['https://tools.example.org/lab', 'https://tools.example.org/lab/',
         'https://tools.example.org/lab/mcp', 'https://tools.example.org/lab/sse']
    """
    return [resource, f"{resource}/", *(f"{resource}/{endpoint}" for endpoint in RESOURCE_ENDPOINTS)]


class AudienceLog:
    """Says a refusal for the audience at WARNING once per distinct token ``aud``, then at INFO."""

    def __init__(self, log: logging.Logger) -> None:
        self._log = log
        self._told: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()  # verifications run on the loop and on worker threads

    def refused(self, token_aud: str, detail: str) -> None:
        """Log the refusal; ``token_aud`` is the token's ``aud`` as shown, ``detail`` the whole reason."""
        with self._lock:
            first = token_aud not in self._told
            self._told[token_aud] = None
            self._told.move_to_end(token_aud)
            while len(self._told) > TOLD_KEPT:
                self._told.popitem(last=False)
        level = logging.WARNING if first else logging.INFO
        self._log.log(level, "refused a JWT: the audience check failed (%s)", detail)
