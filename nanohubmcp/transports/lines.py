"""Newline-delimited JSON messages on file descriptors: what the stdio transport and the
``nanohubmcp bridge`` share.

:func:`protect_stdout` keeps standard output for protocol messages alone; :class:`LineReader`
reads lines on a thread of its own and hands them to the event loop; :class:`LineWriter` writes
one JSON message per line, from any thread, never interleaving two (a kept file's text, on a request
marked :data:`~nanohubmcp.server.wire.request.STREAMS_TEXT`, a piece at a time as it is read).

Source: MCP 2025-11-25, Basic § Transports § stdio (messages are delimited by newlines and
contain no embedded newlines; the server writes nothing to stdout that is not a message).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import os
import sys
import threading
from collections.abc import Callable, Iterable
from typing import Any

from ..errors import InvalidRequest, error_response
from ..processes.workers import STOP_SIGNALS
from ..protocol import jsonenc, text_pieces
from ..protocol.sendable import Parts, unsendable_parts
from .input_end import HangupWatch

log = logging.getLogger("nanohubmcp.stdio")

MAX_LINE_BYTES = 4 * 1024 * 1024
"""Longest accepted message line; longer ones are reported as :class:`TooLong` and skipped."""
HEAD_BYTES = 4096
"""How much of an over-long line is kept to find the request's ``id`` in."""
END_OF_INPUT_GRACE_SECONDS = 1.0
"""At the end of input, how long a request still running has to end and be answered before it is cancelled as the
client's cancel: a piped client (``printf ... | nanohubmcp run app.py --transport stdio``) closes its input at once
and reads the answers, so a call of a few hundred milliseconds is answered; a client that quit mid-call has it
cancelled a second later. The stdio server's (:mod:`.stdio`, from the end of input) and the bridge's
(:mod:`.bridge.ending`, from the request's sending) alike."""


class TooLong(bytes):
    """Stands for a line over the limit on the reader's queue; its value is the line's first
    :data:`HEAD_BYTES` bytes (where the request's ``id`` usually is)."""


def too_long_response(line: TooLong, limit: int) -> dict[str, Any]:
    """The -32600 error answering an over-long line, with the request's id when its first bytes
    name it (:func:`leading_id`), else ``null`` (JSON-RPC 2.0 § 5)."""
    refusal = InvalidRequest(f"Message too long: the limit is {limit} bytes per line")
    return error_response(refusal, leading_id(line))


def leading_id(head: bytes) -> str | int | None:
    """The ``id`` of a JSON object whose text begins with ``head``, when ``id`` comes before the
    text is cut off (members are read in order); None when it does not, or is no valid id."""
    text = head.decode("utf-8", errors="ignore")  # the cut may fall inside a character
    decode = json.JSONDecoder().raw_decode
    pos = _skip_space(text, 0)
    if not text.startswith("{", pos):
        return None
    pos += 1
    try:
        while True:
            key, pos = decode(text, _skip_space(text, pos))
            pos = _skip_space(text, pos)
            if not isinstance(key, str) or not text.startswith(":", pos):
                return None
            value, pos = decode(text, _skip_space(text, pos + 1))
            pos = _skip_space(text, pos)
            if pos >= len(text):
                return None  # the value may have been cut short (a number's last digits)
            if key == "id":
                valid = isinstance(value, (str, int)) and not isinstance(value, bool)
                return value if valid else None
            if not text.startswith(",", pos):
                return None
            pos += 1
    except ValueError:  # cut off before an id
        return None


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


_protocol_fd: int | None = None


def protect_stdout() -> int:
    """Keep stdout for the protocol alone; returns the file descriptor protocol writes go to.

    The original stdout is duplicated to a private descriptor, then descriptor 1 is pointed at
    stderr, so anything else written to "stdout" — ``print()``, C extensions, child processes —
    reaches stderr instead of corrupting the stream. Idempotent.
    """
    global _protocol_fd
    if _protocol_fd is None:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        _protocol_fd = os.dup(1)
        os.dup2(2, 1)
        reconfigure = getattr(sys.stdout, "reconfigure", None)
        if reconfigure is not None:  # print() now reaches stderr: show it line by line, like stderr
            with contextlib.suppress(Exception):
                reconfigure(line_buffering=True)
    return _protocol_fd


def stop_on_signals(stop: asyncio.Event, signals: Iterable[int] = STOP_SIGNALS,
                    then: Callable[[int], None] | None = None) -> list[int]:
    """Set ``stop`` on each of ``signals`` (default SIGINT/SIGTERM; a blocking stdio serve's are
    :func:`..processes.workers.stop_signals`), where the platform and thread allow signal handlers, and call
    ``then(signum)`` first; returns the list each signal taken is added to, in order (the first: what stopped it)."""
    loop = asyncio.get_running_loop()
    taken: list[int] = []

    def took(signum: int) -> None:
        taken.append(signum)
        if then is not None:
            then(signum)
        stop.set()

    for sig in signals:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, took, sig)
    return taken


class LineWriter:
    """Writes JSON messages, one per line, to a file descriptor (thread-safe).

    ``closed`` turns true once the reader on the other end went away (a write failed). ``unsendable`` makes
    the line of a response JSON cannot hold (:meth:`.Connection.unsendable_parts` of the server written for;
    by default, as for a server without middleware).
    """

    def __init__(self, fd: int, *, unsendable: Callable[[Any, Exception], Parts] | None = None) -> None:
        self.fd = fd
        self._unsendable = unsendable or functools.partial(unsendable_parts, middleware=False)
        self.closed = False
        self._lock = threading.Lock()

    def write(self, message: Any) -> None:
        """Write ``message`` (a JSON value) as one line; nothing once closed.

        The line is written as the parts the encoder made (:func:`~nanohubmcp.protocol.jsonenc.dumpb_parts`),
        never joined: a pre-encoded array's text as it is, a kept file's text
        (:class:`~nanohubmcp.protocol.text_pieces.TextPieces`) escaped a piece at a time as it is read.
        """
        if self.closed:
            return
        try:
            parts = jsonenc.dumpb_parts(message)
        except (TypeError, ValueError) as exc:  # a middleware's value JSON cannot hold: answered as an error
            parts = self._unsendable(message, exc)
        first = parts[0]
        if len(parts) == 1 and isinstance(first, bytes):  # (the usual message)
            self.write_bytes(first)
            return
        with self._lock:
            try:
                for part in parts:
                    if isinstance(part, bytes):
                        self._write(part)
                    else:
                        self._write_text(part)
                self._write(b"\n")
            except OSError:  # the other end closed: nobody is listening any more
                self.closed = True
            finally:
                for part in parts:
                    if not isinstance(part, bytes):
                        part.close()

    def write_bytes(self, data: bytes) -> None:
        """Write one line of JSON text already encoded (without its newline)."""
        with self._lock:
            try:
                self._write(data + b"\n")
            except OSError:  # the other end closed: nobody is listening any more
                self.closed = True

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd, view) :]

    def _write_text(self, text: text_pieces.TextPieces) -> None:
        """Write ``text``'s escaped string a piece at a time. A piece that cannot be read (the file gone
        bad under the answer, which the server never does to a kept file) ends the line there: the
        client reads a line that is no JSON, and the server log says why."""
        pieces = text_pieces.escaped_pieces(text)
        while True:
            try:
                piece = next(pieces, None)
            except (OSError, UnicodeDecodeError) as exc:
                log.error("a kept text could not be read while its answer was written; the line ends short: %s", exc)
                return
            if piece is None:
                return
            self._write(piece)


class LineReader:
    """Reads lines from a file descriptor; :meth:`get` hands them out on the event loop.

    A pipe, socket or terminal is watched by the event loop itself (no thread, no hop between
    threads per message); anything else (a regular file) is read on a daemon thread. Either way
    the descriptor is read with ``os.read``, not through ``sys.stdin``: a daemon thread blocked
    inside a buffered reader would hold its lock when the interpreter exits (a crash).

    Args:
        fd: where to read (standard input by default).
        max_line_bytes: longest line; a longer one comes out as :class:`TooLong`.
        on_line: called on the event loop with each line as it is read (then None at end of
            input), instead of queueing it for :meth:`get`: a reader that serves each line at
            once need not wake a coroutine per line.
        on_end: called once, on whichever thread first learns that the input ended, even while the
            event loop is blocked: a watched descriptor's peer hanging up (:class:`.input_end.HangupWatch`,
            or the loop reading its end where that cannot be seen), the reader thread's end of input.
    """

    def __init__(self, fd: int = 0, max_line_bytes: int = MAX_LINE_BYTES,
                 on_line: Callable[[bytes | None], None] | None = None,
                 on_end: Callable[[], None] | None = None) -> None:
        self.in_fd = fd
        self.max_line_bytes = max_line_bytes
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._put: Callable[[bytes | None], None] = on_line if on_line is not None else self.queue.put_nowait
        self._pending = bytearray()
        self._skipping = False
        self._loop = asyncio.get_running_loop()
        self._watched = False
        self._on_end = on_end
        self._end_told = threading.Lock()  # held for good once on_end was called
        self._hangup: HangupWatch | None = None
        if not os.isatty(fd):  # a terminal stays blocking: the shell shares it
            try:
                os.set_blocking(fd, False)
                self._loop.add_reader(fd, self._readable)
                self._watched = True
            except (OSError, ValueError, NotImplementedError):  # a regular file cannot be watched
                os.set_blocking(fd, True)
        if not self._watched:
            threading.Thread(target=self._read_blocking, name="nanohubmcp-stdin", daemon=True).start()
        elif on_end is not None:  # the loop reads the end only when it runs: a thread sees the hangup
            self._hangup = HangupWatch(fd, self._ended)
            self._hangup.start()

    def _ended(self) -> None:
        if self._on_end is not None and self._end_told.acquire(blocking=False):
            self._on_end()

    def close(self) -> None:
        """Stop watching the descriptor and make it blocking again (others may share it)."""
        if self._hangup is not None:
            self._hangup.close()
            self._hangup = None
        if self._watched:
            self._watched = False
            with contextlib.suppress(OSError, ValueError):
                self._loop.remove_reader(self.in_fd)
                os.set_blocking(self.in_fd, True)

    async def get(self, *stops: asyncio.Future[Any]) -> bytes | None:
        """The next line (without its newline), a :class:`TooLong`, or None at end of input or once
        one of ``stops`` is done."""
        getter = asyncio.ensure_future(self.queue.get())
        done, _ = await asyncio.wait({getter, *stops}, return_when=asyncio.FIRST_COMPLETED)
        if getter not in done:
            getter.cancel()
            return None
        return getter.result()

    def _readable(self) -> None:
        """The descriptor has data (event loop thread)."""
        try:
            chunk = os.read(self.in_fd, 1 << 16)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self._ended()
            self.close()
        self._split(chunk, self._put)

    def _read_blocking(self) -> None:
        """Reader thread for descriptors the loop cannot watch."""

        def put(line: bytes | None) -> None:
            with contextlib.suppress(RuntimeError):  # the loop already closed
                self._loop.call_soon_threadsafe(self._put, line)

        while True:
            try:
                chunk = os.read(self.in_fd, 1 << 16)
            except OSError:
                chunk = b""
            self._split(chunk, put)
            if not chunk:
                self._ended()
                return

    def _split(self, chunk: bytes, put: Any) -> None:
        """Cut ``chunk`` into lines for ``put``; an empty chunk is the end of input (None)."""
        pending, limit = self._pending, self.max_line_bytes
        if not chunk:
            if pending.strip() and not self._skipping:  # a last line without its newline
                put(bytes(pending))
            pending.clear()
            put(None)
            return
        start = len(pending)  # what came before has no newline: search only the new chunk
        pending += chunk
        while True:
            end = pending.find(b"\n", start)
            start = 0
            if end < 0:
                if len(pending) > limit:  # an over-long line: drop it up to its newline
                    if not self._skipping:
                        self._skipping = True
                        put(TooLong(pending[:HEAD_BYTES]))
                    pending.clear()
                return
            line = bytes(pending[:end])  # without its newline: a message's text is what the client wrote
            del pending[: end + 1]
            if self._skipping:
                self._skipping = False
                continue
            put(TooLong(line[:HEAD_BYTES]) if len(line) > limit else line)
