"""Whether a value given at registration (a tool's schema, its ``meta``) has a JSON form, and where not.

A value is published as JSON in every ``tools/list``: one that JSON cannot write (``inf``, ``nan``, a
``Decimal``, a set, a numpy scalar that is not a ``float``, an int beyond Python's 4,300-digit text limit,
a dict keyed by anything but strings) was published as ``null`` or made every ``tools/list`` fail, so it is
refused where it is given, naming where it sits.
"""

from __future__ import annotations

import math
from collections.abc import Collection

from nanohubmcp.errors import RegistrationError
from nanohubmcp.schema.paths import format_path

_LONG_INT_BITS = 14_000
"""Ints of more bits may pass Python's int-to-text limit (4,300 digits); only those are written to find out."""


_FINITE = "write a finite number or leave the keyword out"
_PLAIN = "write it as a plain number, string, true/false, None, list, or dict with string keys"


def json_form_problem(value: object, path: list[str | int], *, passed: Collection[str] = ()) -> str | None:
    """What in ``value`` has no JSON form and what to write instead (``"<what> at <where> has no JSON form;
    <advice>"``, ``where`` below the value's root ``schema``), or None when all of it has one. The values
    under a key in ``passed`` are not looked into (a generated schema's ``default``: published as before)."""
    if value is None or isinstance(value, (str, bool)):
        return None
    where = format_path("schema", path)
    if isinstance(value, int):
        if value.bit_length() > _LONG_INT_BITS:
            try:
                repr(value)
            except ValueError:
                return f"an int of over 4,300 digits at {where} has no JSON form; {_FINITE}"
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else f"{value!r} at {where} has no JSON form; {_FINITE}"
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"a {type(key).__name__} key ({key!r:.40}) at {where} has no JSON form; {_PLAIN}"
            if key in passed:
                continue
            found = json_form_problem(item, [*path, key], passed=passed)
            if found:
                return found
        return None
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            found = json_form_problem(item, [*path, index], passed=passed)
            if found:
                return found
        return None
    return f"a {type(value).__name__} ({value!r:.40}) at {where} has no JSON form; {_PLAIN}"


def check_json_form(value: object, label: str, what: str, *, passed: Collection[str] = ()) -> None:
    """Raise ``RegistrationError`` ``"<label>: invalid <what>: <what to fix>"`` when :func:`json_form_problem`
    finds something in ``value`` with no JSON form."""
    found = json_form_problem(value, [], passed=passed)
    if found:
        raise RegistrationError(f"{label}: invalid {what}: {found}")
