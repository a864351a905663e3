"""A kept result's text read from its file a piece at a time, for the answer that sends it so.

A ``resources/read`` of a large kept result answers its whole text. Read into a ``str`` and written into
the answer, a text of 200 MB is held about three times over (the file's bytes, the decoded string, the
answer's bytes). When the transport says it writes such a text a piece at a time (a Streamable HTTP
POST, a legacy SSE message, stdio, and no middleware of the application's in the way:
:data:`~nanohubmcp.server.wire.request.STREAMS_TEXT`), the read's
``text`` is a :class:`KeptText` instead: the file, opened when the read found it, decoded a piece at a
time; the transport escapes and sends each piece (:func:`~nanohubmcp.protocol.text_pieces.escaped_pieces`).
A JSON body or a stdio line closes it once sent; an SSE event leaves it to the message (kept for a resuming
client on a resumable stream), and it closes when the message is let go. Its size as escaped JSON text is
counted when it is made (one pass over the file, a piece at a time), so the answer's ``Content-Length`` is
known before its first byte, and a file that is not UTF-8 fails the read there, as reading it whole does. A
text holding UTF-16 surrogates (kept as the store writes them, ``surrogatepass``: a pair's two halves, as a
tool joining UTF-16 code units gives, or a lone one) is read in pieces too, each as the wire writes that text
read whole (:func:`~nanohubmcp.protocol.lone_surrogates.wire_pieces`): a pair as its character, even one
split between two pieces, and a lone surrogate as U+FFFD.

The file stays open until the answer is sent: an entry removed meanwhile (expired, evicted to make room,
removed by another process of the server) still reads whole, as on POSIX a removed file's data lives
while it is open. Any other writer (a batch, a message crossing processes) writes it as the string it
stands for.
"""

from __future__ import annotations

import codecs
import os
import weakref
from collections.abc import Iterator
from typing import BinaryIO, Final

from ...protocol import text_pieces

READ_PIECE_BYTES: Final = 1 << 20
"""Bytes of a kept file read, decoded and sent at a time (:attr:`ResultStore.read_piece_bytes`' default):
a read holds a few pieces' worth, not the text."""


class KeptText(text_pieces.TextPieces):
    """The UTF-8 text of an open kept file, as a JSON string read a piece at a time.

    Args:
        file: the file, open for reading in binary; once made, the object owns it (:meth:`close`, or
            when the object is collected).
        piece_bytes: bytes read at a time.
        errors: how the file's UTF-8 is decoded (``"surrogatepass"``: as the store wrote it).
        mended: the text holds UTF-16 surrogates: its pieces are as the wire writes the text
            (:func:`~nanohubmcp.protocol.lone_surrogates.wire_pieces`; :func:`kept_text` knows when).

    Raises:
        UnicodeDecodeError: the file is not UTF-8.
        UnicodeEncodeError: not ``mended``, and the text holds a surrogate, which has no UTF-8 form.
    """

    def __init__(self, file: BinaryIO, piece_bytes: int = READ_PIECE_BYTES, errors: str = "strict",
                 mended: bool = False) -> None:
        self._file = file
        self._piece_bytes = max(1, piece_bytes)
        self._errors = errors
        self._mended = mended
        self.size = text_pieces.escaped_size(self.pieces())  # (raising, the object owns no file yet)
        self._closed = weakref.finalize(self, file.close)

    def pieces(self) -> Iterator[str]:
        """The text from its start, a piece of at most ``piece_bytes`` bytes at a time (a piece ends on
        a whole character: a character cut by the piece's end starts the next; ``mended``, a surrogate
        pair's two halves are in one piece, written as their character).

        Raises:
            UnicodeDecodeError: the file is not UTF-8.
        """
        if not self._mended:
            return self._decoded()
        from ...protocol.lone_surrogates import wire_pieces  # (only for a text holding surrogates)

        return wire_pieces(self._decoded())

    def _decoded(self) -> Iterator[str]:
        fd, size, offset = self._file.fileno(), self._piece_bytes, 0
        decoder = codecs.getincrementaldecoder("utf-8")(self._errors)
        # At an offset of its own, not the file's: two writers may read it at once (an SSE event a
        # resuming client has replayed while its first writing stops).
        while data := os.pread(fd, size, offset):
            offset += len(data)
            piece = decoder.decode(data)
            del data
            if piece:
                yield piece
        rest = decoder.decode(b"", final=True)  # raises for a character cut off at the end
        if rest:
            yield rest

    def close(self) -> None:
        """Close the file (again: nothing)."""
        self._closed()


def kept_text(file: BinaryIO, piece_bytes: int, errors: str) -> KeptText:
    """The text of the open kept ``file`` as a :class:`KeptText`, ``mended`` when it holds UTF-16 surrogates
    (a pair's halves a tool joined from UTF-16 code units, a client's lone ``"\\ud800"`` a tool echoed): found
    when its size is counted, then counted again in the pieces the wire writes. Closes ``file`` unless a
    :class:`KeptText` owns it.

    Raises:
        UnicodeDecodeError: the file is not UTF-8.

    .. versionchanged:: 1.0
       Such a text is read in pieces too; it was read whole, a ``str`` (the wire's bytes are the same).
    """
    try:
        try:
            return KeptText(file, piece_bytes, errors)
        except UnicodeEncodeError:
            return KeptText(file, piece_bytes, errors, mended=True)
    except BaseException:
        file.close()
        raise
