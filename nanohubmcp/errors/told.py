"""A failed call's exception as it is told, once, to everything that tells it.

A tool's exception is told in several places: the client's answer, the job record and the provenance
record (its message), the log (its text and traceback) and the trace (a span's status, its ``exception``
event's ``exception.message`` and ``exception.stacktrace``). :class:`Failure` makes each of those texts
once, through one ``hide`` (a call's :class:`~nanohubmcp.schema.secret_text.SecretText`: a ``Secret``
argument's value quoted by the exception, its cause or its context is ``***``), so no place tells
it otherwise. Where ``hide`` cannot mask a value in place without telling it (a short one standing where an
ordinary word of the text stands: ``***`` would name it), it gives back a :class:`Withheld` notice for the
whole text, and the failure tells the exception's type and that notice instead.
"""

from __future__ import annotations

import builtins
import traceback
from collections.abc import Callable
from typing import Any

from .base import message_of, text_of
from .protocol import ProtocolError

_GROUP: type[BaseException] | None = getattr(builtins, "BaseExceptionGroup", None)  # (Python 3.11 on)
_CAUSE = "\nThe above exception was the direct cause of the following exception:\n\n"
_CONTEXT = "\nDuring handling of the above exception, another exception occurred:\n\n"

__all__ = ["Failure", "Withheld", "told_protocol_error"]


class Withheld(str):
    """What a ``hide`` gives back for a text it withholds whole (a notice saying why), rather than the text
    with a value masked: :class:`Failure` then tells the exception's type before it (``KeyError: (text
    withheld: ...)``), and :func:`told_protocol_error` drops the error's ``data``."""

    __slots__ = ()


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

    def told(self, text: str) -> str:
        """``text`` (one of the exception's) passed through ``hide``; when ``hide`` withholds it whole, its
        notice led by the exception's type (``ValueError: (text withheld: ...)``)."""
        hidden = self.hide(text)
        return f"{type(self.exc).__name__}: {hidden}" if isinstance(hidden, Withheld) else hidden

    @property
    def message(self) -> str:
        """The call's error text (:func:`~nanohubmcp.errors.message_of`): the answer's, the job record's and
        the provenance record's; withheld whole: the exception's type and why (:meth:`told`)."""
        if self._message is None:
            self._message = self.told(message_of(self.exc))
        return self._message

    @property
    def text(self) -> str:
        """``str(exc)`` (:func:`~nanohubmcp.errors.text_of`: never raising): the log line's, a span's
        ``exception.message`` and status; withheld whole: ``hide``'s notice (the span names the type apart)."""
        if self._text is None:
            self._text = self.hide(text_of(self.exc))
        return self._text

    @property
    def frames(self) -> str:
        """The traceback as Python prints it, cause and context included (no final newline): the log's,
        a span's ``exception.stacktrace``. Each exception's own lines (``Type: text``) pass through ``hide``,
        withheld whole as one line, its type (``module.QualName``) and why; the stack lines are the program's
        (files, line numbers, source): a long secret value is masked there too, but a short value met there (a line
        number's digits) is a coincidence and withholds nothing (review r39 R39-3: a one-character secret withheld
        nearly every logged stack). An exception group is told whole, as before."""
        if self._frames is None:
            if _GROUP is not None and isinstance(self.exc, _GROUP):
                hidden = self.hide("".join(traceback.format_exception(self.exc)).rstrip("\n"))
                self._frames = f"{self.type_name}: {hidden}" if isinstance(hidden, Withheld) else hidden
            else:
                self._frames = "".join(self._told_chain(traceback.TracebackException.from_exception(self.exc),
                                                        set())).rstrip("\n")
        return self._frames

    def _told_chain(self, shown: traceback.TracebackException, seen: set[int]) -> list[str]:
        """The lines of ``shown`` and the exceptions before it, as ``TracebackException.format`` writes them."""
        if id(shown) in seen:
            return []
        seen.add(id(shown))
        lines: list[str] = []
        if shown.__cause__ is not None:
            lines += self._told_chain(shown.__cause__, seen)
            lines.append(_CAUSE)
        elif shown.__context__ is not None and not shown.__suppress_context__:
            lines += self._told_chain(shown.__context__, seen)
            lines.append(_CONTEXT)
        if shown.stack:
            stack = "Traceback (most recent call last):\n" + "".join(shown.stack.format())
            masked = self.hide(stack)
            lines.append(stack if isinstance(masked, Withheld) else masked)
        said = "".join(shown.format_exception_only())
        hidden = self.hide(said.rstrip("\n"))
        if isinstance(hidden, Withheld):
            hidden = f"{said.partition(chr(10))[0].partition(': ')[0]}: {hidden}"  # the type, as Python names it
        lines.append(hidden + "\n")
        return lines

    @property
    def type_name(self) -> str:
        """The exception's type as OpenTelemetry's ``exception.type`` names it (``module.QualName``, a
        builtin's bare)."""
        kind = type(self.exc)
        module = kind.__module__
        return f"{module}.{kind.__qualname__}" if module and module != "builtins" else kind.__qualname__


def told_protocol_error(failure: Failure) -> ProtocolError:
    """``failure.exc``, a :class:`~nanohubmcp.errors.ProtocolError` a tool raised (2026-07-28: the call's
    JSON-RPC error), as its failure tells it: itself when nothing is hidden; else a copy of the same type,
    ``code`` and other attributes whose ``message`` (and ``str()``) has the call's secret values hidden
    (withheld whole: the type and why, :meth:`Failure.told`), and whose ``data`` has each text in it (keys
    too) hidden and a number that is one replaced by ``"***"`` — or, when a part of it would be withheld, is
    None (no part of it is told). The copy is what the answer, the SERVER span's status and the call's record
    read."""
    exc = failure.exc
    assert isinstance(exc, ProtocolError)
    if not failure.hidden:
        return exc
    told: ProtocolError = BaseException.__new__(type(exc))  # its __init__ not run again: attributes copied
    told.__dict__.update(exc.__dict__)
    told.message = failure.told(str(exc.message))
    told.args = (told.message,)
    withheld: list[Withheld] = []

    def hide(text: str) -> str:
        hidden = failure.hide(text)
        if isinstance(hidden, Withheld):
            withheld.append(hidden)
        return hidden

    data = _hidden_data(exc.data, hide)
    told.data = None if withheld else data
    return told


def _hidden_data(value: Any, hide: Callable[[str], str]) -> Any:
    """``value`` (JSON-like) with each text in it passed through ``hide``, and each number whose text it hides
    replaced by that text (``***``)."""
    if isinstance(value, str):
        return hide(value)
    if isinstance(value, dict):
        return {hide(key) if isinstance(key, str) else key: _hidden_data(member, hide)
                for key, member in value.items()}
    if isinstance(value, (list, tuple)):
        return [_hidden_data(member, hide) for member in value]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        text = str(value)
        hidden = hide(text)
        return hidden if hidden != text else value
    return value
