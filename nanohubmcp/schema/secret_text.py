"""A ``Secret`` argument's value kept out of a failed call's text (its message, the log's traceback, a span).

A tool's exception may quote an argument (``{"alice": ...}[password]`` raises ``KeyError('hunter2')``);
its message is the call's error text, stored in the provenance record and the job record, logged,
traced and answered. :func:`secret_values` finds the values a tool's schema marks secret in a call's
arguments (where :func:`~nanohubmcp.schema.secret.stored_arguments` puts its marker), and those of
a dataclass or pydantic instance (``server.call``'s) whose class marks a field ``Secret`` (where
:func:`~nanohubmcp.schema.secret.stored_form` does); :class:`SecretText` replaces each in a text by ``***``.

:class:`Telling` is the one place a failed call's exception is told from: made when the call starts, handed to
every place that tells it — the span around its run (``server.wire.trace_context``), ``run_tool``'s answer, log
and provenance record, a job's end stored after its server stopped or on another loop
(``server.executors.service``), a worker's span (``executors.remote``) — so each tells the same
:class:`~nanohubmcp.errors.told.Failure`, a ``Secret`` argument's value hidden.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any
from urllib.parse import quote, quote_plus

from ..errors.told import Failure
from .secret import REDACTED, Plan, stored_arguments, stored_form

__all__ = ["MASK", "MOST_VALUES", "NO_SECRETS", "UNTOLD", "SecretText", "Telling", "secret_values"]

MASK = "***"
"""What a secret value is shown as in a text."""
_ISOLATED_BELOW = 8
"""A secret shorter than this is hidden only where it stands alone (not inside a longer word or number): a
one-character password must not turn every ``a`` of a message into ``***``, nor a PIN ``2026`` a line
number ``12026``."""
MOST_VALUES = 1024
"""At most this many secret values of one call are looked for (a ``list[Secret]`` of thousands: the first
1,024, in the order of the arguments); the others are not hidden."""
_PLAIN = (str, int, float, bool, type(None))
_CUT_FROM = 16
"""A secret this long or longer is hidden also where a text shows it cut short around an ellipsis (pydantic's
``input_value='first 25...last 24'``, ``reprlib``'s ``'first 11...last 12'``)."""
_CUT_PART = 8
"""The fewest of its first (last) characters hidden right before (after) an ellipsis: a shorter part tells
little of it, and a common word's letters before an ellipsis are not taken for one."""
_ELLIPSES = ("...", "\u2026")


def secret_values(arguments: dict[str, Any], secrets: Plan | None) -> tuple[str, ...]:
    """The values in ``arguments`` that ``secrets`` (a tool's ``secret_plan``) marks, and the ``Secret``
    fields of a dataclass or pydantic instance in them (what ``server.call`` may pass to an ``Any``
    parameter), as text (a string as it is, a number or boolean as ``str()``; a marked object or list:
    each of its values), longest first, at most :data:`MOST_VALUES`; ``()`` when there are none."""
    found: list[str] = []
    _differing(arguments, stored_arguments(arguments, secrets) if secrets is not None else arguments, found)
    return tuple(sorted({value for value in found if value}, key=len, reverse=True))


def _differing(given: Any, stored: Any, found: list[str]) -> None:
    """Collect in ``found`` the leaves of ``given`` that ``stored`` (its stored form) replaced by the marker."""
    if len(found) >= MOST_VALUES or isinstance(given, _PLAIN):
        if isinstance(stored, str) and stored == REDACTED and given != REDACTED:
            _leaves(given, found)
        return
    if isinstance(stored, str) and stored == REDACTED:
        _leaves(given, found)
    elif isinstance(given, dict):
        kept = stored if isinstance(stored, dict) and stored is not given else None
        for key, member in given.items():
            if kept is not None:
                _differing(member, kept.get(key), found)
            elif not isinstance(member, _PLAIN):  # nothing marked here: an instance further in may be
                _differing(member, None, found)
    elif isinstance(given, (list, tuple)):
        if isinstance(stored, list) and stored is not given:  # (the same length: a copy)
            for member, kept_member in zip(given, stored, strict=False):
                _differing(member, kept_member, found)
        else:
            for member in given:
                if not isinstance(member, _PLAIN):
                    _differing(member, None, found)
    elif _has_fields(given):  # a dataclass or pydantic instance (server.call's): the fields its stored form hides
        form = stored_form(given)
        if isinstance(form, dict):
            for name, kept_field in form.items():
                _differing(getattr(given, name, None), kept_field, found)


def _has_fields(value: object) -> bool:
    kind = type(value)
    return (dataclasses.is_dataclass(value) and not isinstance(value, type)) or \
        isinstance(getattr(kind, "model_fields", None), dict)


def _leaves(value: Any, found: list[str]) -> None:
    if len(found) >= MOST_VALUES or value is None:
        return
    if isinstance(value, dict):
        for member in value.values():
            _leaves(member, found)
    elif isinstance(value, (list, tuple)):
        for member in value:
            _leaves(member, found)
    elif isinstance(value, (str, int, float)):
        found.append(str(value))


def _forms(value: str) -> set[str]:
    """How a text may quote ``value``: as written, inside ``repr()``'s and ``ascii()``'s quotes, inside
    JSON's, and percent-encoded as a URL's query or path carries it (``quote``, ``quote_plus``: an API key
    holding ``/ + =`` in a ``requests``/``httpx`` error's URL)."""
    return {value, repr(value)[1:-1], ascii(value)[1:-1], json.dumps(value)[1:-1],
            quote(value, safe=""), quote(value), quote_plus(value)}


class SecretText:
    """Hides a call's secret values (:func:`secret_values`) in a text by :data:`MASK`: each as written, as
    ``repr()``/``ascii()``/JSON write it inside quotes (``KeyError('it\\'s')``) and percent-encoded
    (``key=wJal%2FK7%2B%3D``). A value shorter than 8 characters only where it stands alone.

    Example:
        >>> SecretText(("hunter2secret",))("KeyError: 'hunter2secret'")
        "KeyError: '***'"
    """

    __slots__ = ("_values",)

    def __init__(self, values: tuple[str, ...]) -> None:
        forms = {form for value in values for form in _forms(value)}
        self._values = tuple(sorted(forms, key=len, reverse=True))

    def __bool__(self) -> bool:
        return bool(self._values)

    def __call__(self, text: str) -> str:
        for value in self._values:
            if len(value) >= _ISOLATED_BELOW:
                text = text.replace(value, MASK)
            else:
                text = re.sub(rf"(?<!\w){re.escape(value)}(?!\w)", MASK, text)
        if self._values and len(self._values[0]) >= _CUT_FROM and any(mark in text for mark in _ELLIPSES):
            text = _cut_hidden(text, tuple(value for value in self._values if len(value) >= _CUT_FROM))
        return text


def _cut_hidden(text: str, forms: tuple[str, ...]) -> str:
    """``text`` with a form's head (its first :data:`_CUT_PART` or more characters) written right before an
    ellipsis, and its tail (its last ones) right after one, as :data:`MASK`: a long secret quoted cut short."""
    parts: list[tuple[int, int]] = []
    for mark in _ELLIPSES:
        at = text.find(mark)
        while at != -1:
            after = at + len(mark)
            for form in forms:
                if head := _head_before(text, at, form):
                    parts.append((at - head, at))
                if tail := _tail_after(text, after, form):
                    parts.append((after, after + tail))
            at = text.find(mark, after)
    if not parts:
        return text
    pieces: list[str] = []
    written = 0
    for start, end in sorted(parts):
        if end <= written:
            continue
        pieces.append(text[written:max(start, written)])
        if start >= written:
            pieces.append(MASK)
        written = end
    pieces.append(text[written:])
    return "".join(pieces)


def _head_before(text: str, at: int, form: str) -> int:
    """How many of ``form``'s first characters (the most, at least :data:`_CUT_PART`) end at ``text[at]``; 0: none."""
    window = text[max(0, at - len(form)):at]
    start = window.find(form[:_CUT_PART])
    while start != -1:  # (the earliest start is the longest head)
        if form.startswith(window[start:]):
            return len(window) - start
        start = window.find(form[:_CUT_PART], start + 1)
    return 0


def _tail_after(text: str, at: int, form: str) -> int:
    """How many of ``form``'s last characters (the most, at least :data:`_CUT_PART`) start at ``text[at]``; 0: none."""
    window = text[at:at + len(form)]
    end = window.rfind(form[-_CUT_PART:])
    while end != -1:  # (the latest end is the longest tail)
        if form.endswith(window[:end + _CUT_PART]):
            return end + _CUT_PART
        end = window.rfind(form[-_CUT_PART:], 0, end + _CUT_PART - 1)
    return 0


NO_SECRETS = SecretText(())
"""Hides nothing: a tool without ``Secret`` arguments."""


class Telling:
    """The failures of one call, told with its secret values hidden.

    ``secrets`` and ``arguments`` are the tool's ``secret_plan`` and the call's arguments, whole; their secret
    values (:func:`~nanohubmcp.schema.secret_text.secret_values`) are looked for at the first failure only, so
    a call that succeeds pays nothing. Calling it with an exception gives its :class:`Failure`, the same one
    each time for the same exception (the span's and the answer's texts are one).
    """

    __slots__ = ("_arguments", "_hide", "_last", "_secrets")

    def __init__(self, secrets: Plan | None, arguments: dict[str, Any] | None) -> None:
        self._secrets = secrets
        self._arguments = arguments
        self._hide: SecretText | None = None if arguments else NO_SECRETS
        self._last: Failure | None = None

    @property
    def hide(self) -> SecretText:
        """What hides the call's secret values in a text (hides nothing for a call without any)."""
        if self._hide is None:
            assert self._arguments is not None
            self._hide = SecretText(secret_values(self._arguments, self._secrets))
        return self._hide

    def __call__(self, exc: BaseException) -> Failure:
        last = self._last
        if last is None or last.exc is not exc:
            hide = self.hide
            last = Failure(exc, hide if hide else None)
            if self._arguments is not None:  # (UNTOLD, shared, keeps none)
                self._last = last
        return last

    def last(self, exc: BaseException) -> Failure:
        """``exc``'s :class:`Failure` (the one a span told, if any), no longer kept here: the call's last
        teller reads it (its exception's frames are not kept with a job for its lifetime)."""
        failure = self(exc)
        self._last = None
        return failure


UNTOLD = Telling(None, None)
"""Tells failures as they are: a call whose arguments are gone (a job taken back after a restart keeps them
redacted only)."""
