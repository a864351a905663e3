"""The ``nextCursor`` of a ``*/list`` page: opaque and authenticated (MCP 2025-11-25, Server § Utilities §
Pagination: the cursor is opaque to the client, and an invalid one is -32602).

A cursor holds the position after which the next page starts (a registry entry's key and registration number,
a task's creation time and id: :mod:`.list_pages`, :mod:`.tasks`), sealed for one ``scope`` (the list's method,
and for ``tasks/list`` the caller's session) with a key derived from the server's ``requestState`` key
(:meth:`~..asks.request_state.RequestStateCodec.derived_key`: random per process unless ``state_secret=`` is
given, and with a shared state store (Redis) the store's, so a cursor one process issued reads on another behind
the same URL).

Sealing is deterministic authenticated encryption in the SIV manner, on the standard library's hashes only:
``tag = HMAC-SHA256(k_tag, scope ‖ 0 ‖ position)[:16]`` (the synthetic IV), the position XORed with the key stream
``SHAKE256(k_stream ‖ tag)`` of its length, and the cursor is URL-safe base64 (no padding) of
``c2 ‖ tag ‖ ciphertext``. ``k_tag`` and ``k_stream`` are independent 32-byte keys (HMACs of the seal's key).
SHAKE256 keyed by a secret prefix of fixed length is a PRF (a sponge: no length extension; KMAC is this with
domain separation), so the key stream is a PRF of the tag, as SIV asks, and is made in one call: opening a forged
cursor at :data:`MAX_CURSOR_CHARS` costs well under 1 ms (0.3 ms measured: review r36; a stream of one HMAC per
32 bytes, version ``c1``, cost 2 ms; its cursors are refused by their version). So a
cursor shows nothing of its position (no task id, the capability to read or cancel a task once its session
ended, ends up in a log that records cursors), and one the server did not issue for that list and caller
(forged, altered, another list's, another session's, from before a restart with a random key) fails the tag:
:class:`~...errors.InvalidParams`, "list again without a cursor". So does a spelling the encoder does not write
(the decoder takes ``+`` and ``/`` for ``-`` and ``_``, and ignores the last character's unused low bits): a cursor
opens only as it was issued, character for character. The same position in the same scope always
gives the same cursor.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import weakref
from typing import TYPE_CHECKING, Final

from ...errors import InvalidParams
from ..registry.listed_text import MAX_KEY_CHARS

if TYPE_CHECKING:
    from ..asks.request_state import RequestStateCodec

__all__ = ["CursorSeal", "seal_of"]

_VERSION: Final = b"c2"
_TAG_BYTES: Final = 16
_PURPOSE: Final = b"nanohubmcp list cursor v1"
_LONGEST_POSITION: Final = 20 + 1 + 4 * MAX_KEY_CHARS
"""The longest position sealed, in UTF-8 bytes: a registry entry's ``<number>/<key>``, a registration number of at
most 20 digits and a key of at most :data:`~..registry.listed_text.MAX_KEY_CHARS` characters (refused longer at
registration) of at most 4 bytes each; a task's (its creation time's ``repr`` and a server-made id) is shorter."""
MAX_CURSOR_CHARS: Final = -(-4 * (len(_VERSION) + _TAG_BYTES + _LONGEST_POSITION) // 3)
"""The longest cursor opened (43,743 characters): the longest :meth:`CursorSeal.seal` writes, base64 of
``c2 ‖ tag ‖`` :data:`_LONGEST_POSITION` bytes. A longer one is refused before its key stream is made; every cursor
the server issues opens."""
_NOT_ISSUED: Final = ("Invalid cursor: the server did not issue it for this list (it was altered, is another "
                      "list's or session's, or dates from before the server restarted); list again without a cursor")


class CursorSeal:
    """Seals positions into cursors and opens them, with one 32-byte ``key``."""

    __slots__ = ("_stream", "_tag")

    def __init__(self, key: bytes) -> None:
        self._tag = hmac.new(key, b"tag", hashlib.sha256).digest()
        self._stream = hmac.new(key, b"stream", hashlib.sha256).digest()

    def seal(self, scope: str, position: str) -> str:
        """The cursor for ``position`` (any text) in ``scope`` (the list, and the caller when it is theirs)."""
        plain = position.encode("utf-8", "surrogatepass")
        tag = self._tag_of(scope, plain)
        body = _VERSION + tag + _xor(plain, self._key_stream(tag, len(plain)))
        return base64.urlsafe_b64encode(body).rstrip(b"=").decode("ascii")

    def open(self, scope: str, cursor: object) -> str:
        """The position ``cursor`` holds, when this seal made it for ``scope``.

        Raises:
            InvalidParams: (-32602) ``cursor`` is no string, is longer than :data:`MAX_CURSOR_CHARS`, or is not
                one :meth:`seal` made for ``scope`` with this key.
        """
        if not isinstance(cursor, str):
            raise InvalidParams("Invalid cursor: it must be the string a page gave as nextCursor; list again "
                                "without a cursor")
        if len(cursor) > MAX_CURSOR_CHARS:
            raise InvalidParams(_NOT_ISSUED)
        try:
            sent = cursor.encode("ascii")
            body = base64.urlsafe_b64decode(sent + b"=" * (-len(cursor) % 4))
        except (binascii.Error, UnicodeError, ValueError):
            raise InvalidParams(_NOT_ISSUED) from None
        if base64.urlsafe_b64encode(body).rstrip(b"=") != sent:  # '+' for '-', '/' for '_', other unused last bits
            raise InvalidParams(_NOT_ISSUED)
        if len(body) < len(_VERSION) + _TAG_BYTES or not body.startswith(_VERSION):
            raise InvalidParams(_NOT_ISSUED)
        tag, sealed = body[len(_VERSION):len(_VERSION) + _TAG_BYTES], body[len(_VERSION) + _TAG_BYTES:]
        plain = _xor(sealed, self._key_stream(tag, len(sealed)))
        if not hmac.compare_digest(tag, self._tag_of(scope, plain)):
            raise InvalidParams(_NOT_ISSUED)
        return plain.decode("utf-8", "surrogatepass")

    def _tag_of(self, scope: str, plain: bytes) -> bytes:
        signed = scope.encode("utf-8", "surrogatepass") + b"\0" + plain
        return hmac.new(self._tag, signed, hashlib.sha256).digest()[:_TAG_BYTES]

    def _key_stream(self, tag: bytes, size: int) -> bytes:
        return hashlib.shake_256(self._stream + tag).digest(size)


def _xor(data: bytes, stream: bytes) -> bytes:
    return (int.from_bytes(data, "big") ^ int.from_bytes(stream, "big")).to_bytes(len(data), "big")


_made: tuple[weakref.ref[RequestStateCodec], CursorSeal] | None = None
"""The last seal made, with its codec held weakly: held itself, the codec (its shared state store's client, and
through it the server) outlived its server, the server's job store and threads too, until another server paged."""


def seal_of(codec: RequestStateCodec) -> CursorSeal:
    """The seal keyed from ``codec``'s key (:meth:`~..asks.request_state.RequestStateCodec.derived_key`), made
    again when the server's codec changed (it joined a shared state store)."""
    global _made
    made = _made
    if made is None or made[0]() is not codec:
        made = _made = (weakref.ref(codec), CursorSeal(codec.derived_key(_PURPOSE)))
    return made[1]
