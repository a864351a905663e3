"""The lines of the log handlers nanohubmcp installs itself: what a client sent, echoed in them, neither drives the
operator's terminal nor forges a line.

A tool's ``raise ValueError(f"no material named {name}")`` puts the client's ``name`` into the server's log, and a
name may hold ESC (a terminal's escape sequences: retitle, clear the screen), BEL, a bidirectional override or a
newline (a line of its own, looking like the server's). :class:`LogLines` formats a record as
:class:`logging.Formatter` does, but writes such characters as their escapes (:func:`~nanohubmcp.schema.paths.escaped`,
the rule error messages echo a client's name by): in the message line every one, its newlines too; in a traceback
the line breaks and indents of its own lines are kept and the exception's message (the text after ``ValueError:``)
is written as one line.

Its handlers (:func:`escaping_handler`): the start_mcp child's and the bridge's root handler, the ``--workers``
processes' and ``--access-log``'s (:func:`~.workers.log_requests`), and, where the application configured no logging,
``run()``'s own in place of Python's last resort (:func:`unconfigured_logs`). A handler the application installs
formats as it says (a notebook's included): it is the application's.
"""

from __future__ import annotations

import logging
import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import TypeAlias

from ..schema.paths import escaped

__all__ = ["LogLines", "StderrLines", "escaping_handler", "unconfigured_logs"]

ExcInfo: TypeAlias = tuple[type[BaseException], BaseException, TracebackType | None] | tuple[None, None, None]

OWN_LINES = "\n\t"
"""What a traceback's text keeps as it is: its own line breaks and indents."""
UNCONFIGURED = ("nanohubmcp", "tornado")
"""The loggers :func:`unconfigured_logs` gives a handler (the application's own loggers are left to Python)."""


class LogLines(logging.Formatter):
    """A :class:`logging.Formatter` that writes the characters a client could drive a terminal with as escapes."""

    def format(self, record: logging.LogRecord) -> str:
        # (Not Formatter.format: it keeps the traceback's text on the record, where another handler would write
        # this one's text, or this one the other's, unescaped.)
        record.message = record.getMessage()
        if self.usesTime():
            record.asctime = self.formatTime(record, self.datefmt)
        parts = [escaped(self.formatMessage(record))]
        if record.exc_info:
            parts.append(self.formatException(record.exc_info))
        elif record.exc_text:  # (a record made elsewhere, its traceback already text)
            parts.append(escaped(record.exc_text, OWN_LINES))
        if record.stack_info:
            parts.append(escaped(self.formatStack(record.stack_info), OWN_LINES))
        return "\n".join(part.removesuffix("\n") for part in parts)

    def formatException(self, ei: ExcInfo) -> str:  # (logging.Formatter's name)
        if ei[1] is None:  # (logger.exception() outside an except: "NoneType: None")
            return escaped(super().formatException(ei), OWN_LINES)
        report = traceback.TracebackException(type(ei[1]), ei[1], ei[2])
        messages: set[str] = set()  # each exception's own lines in the report ("ValueError: ..."), its notes too
        pending = [report]
        while pending:
            part = pending.pop()
            _one_line_texts(part)
            messages.update(part.format_exception_only())
            pending.extend(p for p in (part.__cause__, part.__context__) if p is not None)
            pending.extend(getattr(part, "exceptions", None) or ())  # (an exception group's, 3.11 on)
        return "".join(
            escaped(chunk.removesuffix("\n")) + "\n" if chunk in messages else escaped(chunk, OWN_LINES)
            for chunk in report.format()
        ).removesuffix("\n")


def _one_line_texts(part: traceback.TracebackException) -> None:
    """Escape, before ``part`` is formatted, the texts of its exception that the report would split into lines of
    their own: each note (``add_note()``, split at its newlines), and the message, which an exception group's member
    has split at every line break (``\r``, U+2028 too) as its lines are indented."""
    notes = getattr(part, "__notes__", None)
    if isinstance(notes, list):
        part.__notes__ = [escaped(note) if isinstance(note, str) else note for note in notes]  # type: ignore[attr-defined]
    if isinstance(getattr(part, "_str", None), str):  # (the message's text: no public name for it before 3.13)
        part._str = escaped(part._str)  # type: ignore[attr-defined]


class StderrLines(logging.Handler):
    """Writes each record on the process's ``sys.stderr`` of the moment (as Python's last resort does)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(self.format(record) + "\n")
            sys.stderr.flush()
        except Exception:  # (logging's rule: a handler's failure is reported, never raised into the caller)
            self.handleError(record)


def escaping_handler(fmt: str) -> logging.Handler:
    """A handler writing on stderr the :class:`LogLines` of ``fmt``."""
    handler = StderrLines()
    handler.setFormatter(LogLines(fmt))
    return handler


@contextmanager
def unconfigured_logs() -> Iterator[None]:
    """While serving (the block), where the application configured no logging (the root logger has no handler),
    give the loggers of :data:`UNCONFIGURED` without one a handler writing what Python's last resort would (WARNING
    and above, the message alone, on stderr) as :class:`LogLines`; they pass no record on to the root logger meanwhile
    (a handler the application adds to it while serving would write them twice). Put back as found after."""
    if logging.getLogger().handlers:
        yield
        return
    handler = escaping_handler("%(message)s")
    handler.setLevel(logging.WARNING)
    given = [(logger, logger.propagate) for logger in map(logging.getLogger, UNCONFIGURED) if not logger.handlers]
    for logger, _ in given:
        logger.addHandler(handler)
        logger.propagate = False
    try:
        yield
    finally:
        for logger, propagate in given:
            logger.removeHandler(handler)
            logger.propagate = propagate
