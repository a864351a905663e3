"""Large tool results kept as resources of the server, readable only by whoever made them.

A result bigger than ``max_inline_bytes`` is not put into the tool result (it would flood the
model's context); the full data is kept here under an unguessable URI and the result carries a
``resource_link`` to it (MCP 2025-11-25, Server § Tools § Resource links) plus a short preview.
``resources/read`` on that URI returns all of it (MCP 2025-11-25, Server § Resources § Reading
resources), for as long as a finished job's result stays readable (the server's job TTL).

Ownership follows jobs: a result made by an authenticated caller belongs to that principal, one
made in a session to that session, and one made without either (a sessionless 2026-07-28 call,
REST) to whoever holds the URI. Any other caller gets the same "not found" as for a URI that never
existed. The store is bounded in total bytes; the oldest entries go first when it is full.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Final

from ..protocol.content import ResourceLink

URI_PREFIX: Final = "nanohubmcp://results/"
"""Every kept result's URI starts with this; the rest is a random token and a file suffix."""

DEFAULT_MAX_INLINE_BYTES: Final = 256 * 1024
"""Results whose JSON (or PNG) is larger than this become a ``resource_link`` (256 KiB)."""

DEFAULT_STORE_BYTES: Final = 512 * 1024 * 1024
"""What the store holds at most, in bytes, across all owners (512 MiB)."""


@dataclass
class _Entry:
    owner: str | None
    data: bytes | str
    mime_type: str
    expires: float
    size: int


@dataclass
class ResultOptions:
    """How results are shaped.

    Attributes:
        max_inline_bytes: results larger than this (bytes of JSON text, or of PNG data) are kept
            as a resource and linked; None inlines everything.
        figure_dpi: dots per inch of matplotlib figures turned into PNG; None uses each figure's
            own ``dpi`` (so the image is ``figsize * dpi`` pixels).
    """

    max_inline_bytes: int | None = DEFAULT_MAX_INLINE_BYTES
    figure_dpi: float | None = None


class ResultStore:
    """Kept results by URI (thread-safe: conversions may run on worker threads).

    Args:
        ttl: seconds an entry stays readable.
        max_bytes: total size kept; older entries are dropped to make room.
    """

    def __init__(self, ttl: float, max_bytes: int = DEFAULT_STORE_BYTES) -> None:
        self.ttl = ttl
        self.max_bytes = max_bytes
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def keep(self, data: bytes | str, mime_type: str, suffix: str, owner: str | None) -> str:
        """Store ``data`` and return its new URI (``nanohubmcp://results/<token><suffix>``)."""
        size = len(data)
        uri = f"{URI_PREFIX}{secrets.token_urlsafe(24)}{suffix}"
        with self._lock:
            self._sweep(time.time())
            while self._entries and self._bytes + size > self.max_bytes:
                self._drop(next(iter(self._entries)))
            self._entries[uri] = _Entry(owner, data, mime_type, time.time() + self.ttl, size)
            self._bytes += size
        return uri

    def read(self, uri: str, owner: str | None) -> dict[str, Any] | None:
        """The ``ReadResourceResult`` of ``uri`` for ``owner``, or None (unknown, expired, not theirs)."""
        with self._lock:
            self._sweep(time.time())
            entry = self._entries.get(uri)
        if entry is None or (entry.owner is not None and entry.owner != owner):
            return None
        item: dict[str, Any] = {"uri": uri, "mimeType": entry.mime_type}
        if isinstance(entry.data, str):
            item["text"] = entry.data
        else:
            import base64

            item["blob"] = base64.b64encode(entry.data).decode("ascii")
        return {"contents": [item]}

    def __len__(self) -> int:
        return len(self._entries)

    def _sweep(self, now: float) -> None:
        for uri in [u for u, e in self._entries.items() if e.expires <= now]:
            self._drop(uri)

    def _drop(self, uri: str) -> None:
        entry = self._entries.pop(uri)
        self._bytes -= entry.size


def owner_of(request: Any) -> str | None:
    """Who owns what ``request`` makes: its principal, else its session, else nobody."""
    principal = getattr(request, "principal", None)
    if principal is not None:
        return f"principal:{principal.subject}"
    session = getattr(request, "session", None)
    return f"session:{session.id}" if session is not None else None


@dataclass
class ResultSink:
    """Where one call's large results go: the options, the store and the caller who owns them."""

    options: ResultOptions = field(default_factory=ResultOptions)
    store: ResultStore | None = None
    owner: str | None = None

    def too_big(self, size: int) -> bool:
        """True when ``size`` bytes must not be inlined (and there is a store to keep them)."""
        limit = self.options.max_inline_bytes
        return self.store is not None and limit is not None and size > limit

    def link(self, data: bytes | str, mime_type: str, name: str, description: str) -> dict[str, Any]:
        """Keep ``data`` and return the ``resource_link`` block that points at it."""
        assert self.store is not None
        suffix = name[name.rfind(".") :] if "." in name else ""
        uri = self.store.keep(data, mime_type, suffix, self.owner)
        size = len(data.encode("utf-8")) if isinstance(data, str) else len(data)
        return ResourceLink(uri, name=name, description=description, mime_type=mime_type, size=size).to_wire()
