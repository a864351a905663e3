"""Writing a JSON body a piece at a time: the rest of an answer that holds a kept file's text.

``BaseHandler.send_json`` (:mod:`.base`) writes a body's parts as the encoder made them; from a part
that is a :class:`~nanohubmcp.protocol.text_pieces.TextPieces` (a kept result's file, on a route that
asked for it) on, the body is written here, the text escaped a piece at a time
(:func:`~nanohubmcp.protocol.text_pieces.escaped_pieces`), each piece taken by the socket before the next
is read. The server holds a piece or two of the text, not the text: Tornado would keep every byte
written to a response in its buffer until the socket takes it. The body's ``Content-Length`` was set
from the parts' sizes before its first byte; the bytes are those
:func:`~nanohubmcp.protocol.jsonenc.dumpb` writes for the body.

A piece not taken at once counts in the server's unsent budget (:mod:`.unsent`), so a client that
stops reading is closed by its drain deadline as for any answer. A client that goes away mid-answer
ends the writing quietly (a debug line). A text that is no longer what was counted (its file cut
short or grown under the answer, which the server never does to a kept file) or that cannot be read
any more cannot be told to the client now: the connection is closed short of its
``Content-Length``, and the server log says why.

:func:`write_text` is the text's part alone, for a writer that frames it otherwise (an SSE event's
``data:`` line, :mod:`.sse_writer`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from tornado.http1connection import HTTP1Connection
from tornado.iostream import StreamClosedError

from ..protocol.text_pieces import TextPieces, escaped_pieces
from .access_log import request_summary
from .unsent import owner_of

if TYPE_CHECKING:
    from tornado.web import RequestHandler

    from .unsent import UnsentBudget

log = logging.getLogger("nanohubmcp.http")


class Miscounted(Exception):
    """The text's bytes are not the size its maker counted (its file changed under the answer)."""


async def send_rest(handler: RequestHandler, parts: list[bytes | TextPieces], unsent: UnsentBudget) -> None:
    """Write ``parts`` on ``handler``'s response and finish it (its headers, ``Content-Length`` among
    them, are set; what came before ``parts`` is written); a piece the socket does not take at once
    counts in ``unsent`` until it does. Closes each :class:`TextPieces` of ``parts``."""
    try:
        for part in parts:
            if isinstance(part, bytes):
                if part:
                    handler.write(part)
                    await _flushed(handler, len(part), unsent)
            else:
                await write_text(part, lambda piece: _written(handler, piece, unsent))
        handler.finish()
    except StreamClosedError:  # the client went away (or the unsent budget closed it): nothing to write to
        log.debug("a client went away mid-answer (%s)", request_summary(handler))
    except (Miscounted, OSError, UnicodeDecodeError) as exc:  # (the file changed, or cannot be read now)
        log.error("closing a connection mid-answer: %s", exc)
        connection = handler.request.connection
        if isinstance(connection, HTTP1Connection):  # (its Content-Length says the client got less than announced)
            connection.close()
    finally:
        for part in parts:
            if not isinstance(part, bytes):
                part.close()


async def write_text(text: TextPieces, send: Callable[[bytes], Awaitable[None]]) -> None:
    """Send ``text``'s escaped JSON string (quotes left out) a piece at a time: ``await send(piece)`` for
    each, which returns once the piece is taken, before the next piece is read.

    Raises:
        Miscounted: the pieces are not :attr:`~TextPieces.size` bytes (checked before a piece past it goes).
        OSError, UnicodeDecodeError: a piece could not be read.
    """
    sent = 0
    for piece in escaped_pieces(text):
        sent += len(piece)
        if sent > text.size:
            raise Miscounted(f"a kept text is longer than the {text.size} bytes counted (its file changed)")
        await send(piece)
    if sent != text.size:
        raise Miscounted(f"a kept text is {sent} bytes, not the {text.size} counted (its file changed)")


async def _written(handler: RequestHandler, piece: bytes, unsent: UnsentBudget) -> None:
    handler.write(piece)
    await _flushed(handler, len(piece), unsent)


async def _flushed(handler: RequestHandler, size: int, unsent: UnsentBudget) -> None:
    """Flush what was written and wait until the socket took it (held in the unsent budget meanwhile)."""
    written = handler.flush()
    if not written.done():
        unsent.hold(handler.request.connection, size, written, owner_of(handler))
    await written
