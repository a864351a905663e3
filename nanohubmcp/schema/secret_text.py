"""A ``Secret`` argument's value kept out of a failed call's text (its message, the log's traceback, a span).

A tool's exception may quote an argument (``{"alice": ...}[password]`` raises ``KeyError('hunter2')``);
its message is the call's error text, stored in the provenance record and the job record, logged,
traced and answered. :func:`secret_values` finds the values a tool's schema marks secret in a call's
arguments (where :func:`~nanohubmcp.schema.secret.stored_arguments` puts its marker), and those of
a dataclass or pydantic instance (``server.call``'s) whose class marks a field ``Secret`` (where
:func:`~nanohubmcp.schema.secret.stored_form` does); :class:`SecretText` replaces each in a text by ``***``,
or, for a value shorter than 8 characters found anywhere but a place of its own, withholds the whole text:
``***`` where an ordinary word (``the``, ``key``, ``1``) of the text stood would tell the value.

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

from ..errors.told import Failure, Withheld
from .secret import REDACTED, Plan, stored_arguments, stored_form

__all__ = ["MASK", "MOST_VALUES", "NO_SECRETS", "SHORT_BELOW", "UNTOLD", "WITHHELD", "SecretText", "Telling",
           "secret_values"]

MASK = "***"
"""What a secret value is shown as in a text."""
SHORT_BELOW = 8
"""A secret (as a text writes it) shorter than this is masked only at a place of its own: quoted, leading a line
(after a label: ``KeyError: '7'``, ``'7'``, a refusal's ``arguments.pin: "ab" is too short``).
Found anywhere else — as a word of the text (``the``, ``key``), inside a longer one or a number (a PIN
``2026`` in ``line 12026``) — the text is withheld whole (:data:`WITHHELD`): ``***`` in place of an ordinary
word would tell the value, and a value left unmasked inside a word would show it."""
WITHHELD = Withheld(
    f"(text withheld: it quotes a Secret argument's value of under {SHORT_BELOW} characters, which masking "
    "in place would give away)")
"""What a text is told as when it holds a short secret value at a place not its own (:data:`SHORT_BELOW`); a
failure's message leads it with the exception's type (``ValueError: (text withheld: ...)``)."""
_TOLD_WITHHELD = re.compile(rf"((?:[\w.]+: )?{re.escape(WITHHELD)})")
"""A notice a text already holds (a refusal line withheld, a type before it): never taken for a secret's place,
so hiding a told text again changes nothing."""
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
    (``key=wJal%2FK7%2B%3D``). A form shorter than :data:`SHORT_BELOW` characters is masked only at a place
    of its own; found anywhere else the text is withheld whole: the call gives :data:`WITHHELD`.

    Example:
        >>> hide = SecretText(("hunter2secret", "key"))
        >>> hide("KeyError: 'hunter2secret'"), hide("KeyError: 'key'")
        ("KeyError: '***'", "KeyError: '***'")
        >>> hide("the key is missing") is WITHHELD
        True
    """

    __slots__ = ("_given", "_long", "_own", "_short", "_values")

    def __init__(self, values: tuple[str, ...]) -> None:
        self._given = values
        forms = {form for value in values for form in _forms(value)}
        self._values = tuple(sorted(forms, key=len, reverse=True))
        self._long = tuple(form for form in self._values if len(form) >= SHORT_BELOW)
        self._short = tuple(form for form in self._values if len(form) < SHORT_BELOW)
        either = "|".join(map(re.escape, self._short))
        # a short value quoted as a line's value: the whole line, or what leads it (after a label: the type
        # message_of puts first, a refusal's path); bare, it may as well be a word of the text's own
        self._own = re.compile(rf"^([\w.\[\]]+: )?(['\"])(?:{either})\2(?= |$)", re.M) if self._short else None

    def __bool__(self) -> bool:
        return bool(self._values)

    def __reduce__(self) -> tuple[type[SecretText], tuple[tuple[str, ...]]]:
        # Pickled as its values (a batch job's, a Dask worker's), made again where it is unpickled: a node whose
        # nanohubmcp is of another release still hides them as its own SecretText does.
        return SecretText, (self._given,)

    def __call__(self, text: str) -> str:
        for value in self._long:
            text = text.replace(value, MASK)
        if self._long and len(self._long[0]) >= _CUT_FROM and any(mark in text for mark in _ELLIPSES):
            text = _cut_hidden(text, tuple(value for value in self._long if len(value) >= _CUT_FROM))
        if self._own is None or not any(form in text for form in self._short):  # (the usual case: none)
            return text
        told: list[str] = []
        for number, part in enumerate(_TOLD_WITHHELD.split(text)):  # (odd: a notice already told, kept)
            if number % 2 == 0:
                part = self._own.sub(_masked, part)
                if any(form in part for form in self._short):
                    return WITHHELD
            elif any(form in part[: -len(WITHHELD)] for form in self._short):  # a notice's label quoting one
                return WITHHELD
            told.append(part)
        return "".join(told)

    def labelled(self, line: str) -> str:
        """``line``, a ``label: text`` line (a refusal's ``arguments.pin: "ab" is too short``), hidden as the
        call hides a text; withheld whole, the notice keeps the label (which argument) when no secret value is
        in it: ``arguments.pin: (text withheld: ...)``."""
        hidden = self(line)
        if not isinstance(hidden, Withheld):
            return hidden
        label, colon, _ = line.partition(": ")
        return f"{label}: {hidden}" if colon and self(label) == label else hidden


def _masked(found: re.Match[str]) -> str:
    label, quote = found.group(1) or "", found.group(2)
    return f"{label}{quote}{MASK}{quote}"


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
