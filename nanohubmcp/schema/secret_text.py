"""A ``Secret`` argument's value kept out of a failed call's text (its message, the log's traceback).

A tool's exception may quote an argument (``{"alice": ...}[password]`` raises ``KeyError('hunter2')``);
its message is the call's error text, stored in the provenance record and the job record, logged and
answered. :func:`secret_values` finds the values a tool's schema marks secret in a call's arguments
(where :func:`~nanohubmcp.schema.secret.stored_arguments` puts its marker); :class:`SecretText` replaces
each in a text by ``***``.
"""

from __future__ import annotations

import re
from typing import Any

from .secret import REDACTED, Plan, stored_arguments

__all__ = ["MASK", "NO_SECRETS", "SecretText", "secret_values"]

MASK = "***"
"""What a secret value is shown as in a text."""
_ISOLATED_BELOW = 4
"""A secret shorter than this is hidden only where it stands alone (not inside a longer word): a
one-character password must not turn every ``a`` of a message into ``***``."""
_MOST = 64
"""At most this many values are looked for (a ``list[Secret]`` of thousands: the first ones)."""


def secret_values(arguments: dict[str, Any], secrets: Plan | None) -> tuple[str, ...]:
    """The values in ``arguments`` that ``secrets`` (a tool's ``secret_plan``) marks, as text (a string as
    it is, a number or boolean as ``str()``; a marked object or list: each of its values), longest first;
    ``()`` for a tool without secrets."""
    if secrets is None:
        return ()
    found: list[str] = []
    _differing(arguments, stored_arguments(arguments, secrets), found)
    return tuple(sorted({value for value in found if value}, key=len, reverse=True))


def _differing(given: Any, stored: Any, found: list[str]) -> None:
    if len(found) >= _MOST:
        return
    if isinstance(stored, str) and stored == REDACTED and given != REDACTED:
        _leaves(given, found)
    elif isinstance(given, dict) and isinstance(stored, dict) and given is not stored:
        for key, member in given.items():
            _differing(member, stored.get(key), found)
    elif isinstance(given, (list, tuple)) and isinstance(stored, list) and given is not stored:
        for member, kept in zip(given, stored, strict=False):  # (the same length: a copy)
            _differing(member, kept, found)


def _leaves(value: Any, found: list[str]) -> None:
    if len(found) >= _MOST or value is None:
        return
    if isinstance(value, dict):
        for member in value.values():
            _leaves(member, found)
    elif isinstance(value, (list, tuple)):
        for member in value:
            _leaves(member, found)
    elif isinstance(value, (str, int, float)):
        found.append(str(value))


class SecretText:
    """Hides a call's secret values (:func:`secret_values`) in a text: each as written and as ``repr()``
    writes it inside quotes (``KeyError('it\\'s')``), by :data:`MASK`.

    Example:
        >>> SecretText(("hunter2secret",))("KeyError: 'hunter2secret'")
        "KeyError: '***'"
    """

    __slots__ = ("_values",)

    def __init__(self, values: tuple[str, ...]) -> None:
        forms = {form for value in values for form in (value, repr(value)[1:-1], ascii(value)[1:-1])}
        self._values = tuple(sorted(forms, key=len, reverse=True))

    def __bool__(self) -> bool:
        return bool(self._values)

    def __call__(self, text: str) -> str:
        for value in self._values:
            if len(value) >= _ISOLATED_BELOW:
                text = text.replace(value, MASK)
            else:
                text = re.sub(rf"(?<!\w){re.escape(value)}(?!\w)", MASK, text)
        return text


NO_SECRETS = SecretText(())
"""Hides nothing: a tool without ``Secret`` arguments."""
