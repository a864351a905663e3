"""The size of a result to keep and the refusal of one larger than the whole store: counted as UTF-8
without encoding a copy (:func:`utf8_size`), refused with :class:`TooLargeToKeep`, whose message says what
to do instead (:data:`KEEP_LESS`, which the call's own refusal in :mod:`.sink` repeats). The bounds
themselves are :class:`~.store.ResultStore`'s.
"""

from __future__ import annotations

from typing import Final

from .folder import KEPT_ERRORS

__all__ = ["KEEP_LESS", "TooLargeToKeep", "utf8_size"]

KEEP_LESS: Final = ("return less data (a summary, a slice), or save it to a file and return its path, or have "
                    "the server's max_kept_bytes raised")
"""What a refusal to keep a result says to do."""


class TooLargeToKeep(ValueError):
    """A result is larger than the whole store (``size`` bytes, or at least that many; ``limit``)."""

    def __init__(self, size: int, limit: int, *, at_least: bool = False) -> None:
        super().__init__(
            f"the result is {'at least ' if at_least else ''}{size} bytes, more than the server keeps for large "
            f"results ({limit}); {KEEP_LESS}")
        self.size = size
        self.at_least = at_least


def utf8_size(data: bytes | bytearray | str) -> int:
    """The bytes ``data`` takes as UTF-8, without encoding a copy of ASCII text (a kept array's JSON)."""
    if isinstance(data, str):
        return len(data) if data.isascii() else len(data.encode("utf-8", KEPT_ERRORS))
    return len(data)
