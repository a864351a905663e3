"""A failed call's exception as it is told, once, to everything that tells it.

A tool's exception is told in several places: the client's answer, the job record and the provenance
record (its message), the log (its text and traceback) and the trace (a span's status, its ``exception``
event's ``exception.message`` and ``exception.stacktrace``). :class:`Failure` makes each of those texts
once, through one ``hide`` (a call's :class:`~nanohubmcp.schema.secret_text.SecretText`: a ``Secret``
argument's value quoted by the exception, its cause or its context is ``***``), so no place tells
it otherwise.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable

from .base import message_of, text_of

__all__ = ["Failure"]


def _as_it_is(text: str) -> str:
    return text


class Failure:
    """``exc`` as every place tells it, each text passed through ``hide`` (default: as it is) and made
    when first read.

    Attributes:
        exc: the exception.
        hidden: whether ``hide`` hides anything (the call has ``Secret`` values): the log then writes the
            traceback itself (:attr:`frames`) rather than its handler from the exception.
    """

    __slots__ = ("_frames", "_message", "_text", "exc", "hidden", "hide")

    def __init__(self, exc: BaseException, hide: Callable[[str], str] | None = None) -> None:
        self.exc = exc
        self.hide = hide or _as_it_is
        self.hidden = bool(hide)
        self._message: str | None = None
        self._text: str | None = None
        self._frames: str | None = None

    @property
    def message(self) -> str:
        """The call's error text (:func:`~nanohubmcp.errors.message_of`): the answer's, the job record's and
        the provenance record's."""
        if self._message is None:
            self._message = self.hide(message_of(self.exc))
        return self._message

    @property
    def text(self) -> str:
        """``str(exc)`` (:func:`~nanohubmcp.errors.text_of`: never raising): the log line's, a span's
        ``exception.message`` and status."""
        if self._text is None:
            self._text = self.hide(text_of(self.exc))
        return self._text

    @property
    def frames(self) -> str:
        """The traceback as Python prints it, cause and context included (no final newline): the log's,
        a span's ``exception.stacktrace``."""
        if self._frames is None:
            self._frames = self.hide("".join(traceback.format_exception(self.exc)).rstrip("\n"))
        return self._frames

    @property
    def type_name(self) -> str:
        """The exception's type as OpenTelemetry's ``exception.type`` names it (``module.QualName``, a
        builtin's bare)."""
        kind = type(self.exc)
        module = kind.__module__
        return f"{module}.{kind.__qualname__}" if module and module != "builtins" else kind.__qualname__
