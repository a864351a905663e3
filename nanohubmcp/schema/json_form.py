"""Whether a value given at registration (a tool's schema, its ``meta``) has a JSON form, and where not.

A value is published as JSON in every ``tools/list``: one that JSON cannot write (``inf``, ``nan``, a
``Decimal``, a set, a numpy scalar that is not a ``float``, an int beyond Python's 4,300-digit text limit,
a dict keyed by anything but strings, a dict that holds itself) was published as ``null`` or made every
``tools/list`` fail, so it is refused where it is given, naming where it sits.
"""

from __future__ import annotations

import math

from nanohubmcp.errors import RegistrationError
from nanohubmcp.protocol.message_values import shown_value
from nanohubmcp.protocol.nesting import MAX_JSON_DEPTH
from nanohubmcp.schema.paths import format_path

_LONG_INT_BITS = 14_000
"""Ints of more bits may pass Python's int-to-text limit (4,300 digits); only those are written to find out."""


_FINITE = "write a finite number or leave the keyword out"
_LONG = "write a number of at most 4,300 digits, or leave it out"
_ONCE = "write each value once, not the dict or list it is inside of"
_PLAIN = "write it as a plain number, string, true/false, None, list, or dict with string keys"


def json_form_problem(value: object, path: list[str | int], *, root: str = "schema") -> str | None:
    """What in ``value`` has no JSON form and what to write instead (``"<what> at <where> has no JSON form;
    <advice>"``, ``where`` written from ``root``, the value's name: ``schema.properties.x``, ``meta.tags``),
    or None when all of it has one (a generated schema's ``default`` and ``examples`` too: a parameter's
    default of 10**5000 made every list fail). A dict or list that holds itself, or nests more than
    :data:`~nanohubmcp.protocol.nesting.MAX_JSON_DEPTH` levels (the limit a client's body and a tool's result
    are held to), is such a problem too: one named where it repeats, the other by its first levels."""
    return _problem(value, path, root, set())


def _problem(value: object, path: list[str | int], root: str, holding: set[int]) -> str | None:
    """:func:`json_form_problem`, ``holding`` the ids of the dicts and lists ``value`` is inside of."""
    if value is None or isinstance(value, (str, bool)):
        return None
    where = format_path(root, path)
    if isinstance(value, int):
        if value.bit_length() > _LONG_INT_BITS:
            try:
                repr(value)
            except ValueError:
                return f"an int of over 4,300 digits at {where} has no JSON form; {_LONG}"
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else f"{value!r} at {where} has no JSON form; {_FINITE}"
    if isinstance(value, (dict, list, tuple)):
        if id(value) in holding:
            return f"{_a(type(value).__name__)} at {where} holds itself and has no JSON form; {_ONCE}"
        if len(path) >= MAX_JSON_DEPTH:
            return (f"the value at {format_path(root, path[:3])}… nests more than {MAX_JSON_DEPTH} levels deep, "
                    "past the limit of the server's JSON; write it in fewer levels")
        holding.add(id(value))
        try:
            return _member_problem(value, path, root, holding)
        finally:
            holding.discard(id(value))
    if type(value).__name__ == "bool" or type(value).__name__ == "bool_":  # numpy's, not Python's (above)
        return f"a numpy bool ({bool(value)}) at {where} has no JSON form; write the Python bool {bool(value)}"
    return f"{_a(type(value).__name__)} ({shown_value(value)}) at {where} has no JSON form; {_PLAIN}"


def _a(noun: str) -> str:
    """``noun`` with its indefinite article (``an int64``, ``a set``; ``a UUID``, ``a uint8``: said "you")."""
    return f"{'an' if noun[:1].lower() in 'aeio' else 'a'} {noun}"


def _member_problem(value: dict[object, object] | list[object] | tuple[object, ...], path: list[str | int],
                    root: str, holding: set[int]) -> str | None:
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return (f"{_a(type(key).__name__)} key ({shown_value(key)}) at {format_path(root, path)} has no "
                        f"JSON form; {_PLAIN}")
            found = _problem(item, [*path, key], root, holding)
            if found:
                return found
        return None
    for index, item in enumerate(value):
        found = _problem(item, [*path, index], root, holding)
        if found:
            return found
    return None


def check_json_form(value: object, label: str, what: str, *, root: str = "schema") -> None:
    """Raise ``RegistrationError`` ``"<label>: invalid <what>: <what to fix>"`` when :func:`json_form_problem`
    finds something in ``value`` (named ``root`` in the message) with no JSON form."""
    found = json_form_problem(value, [], root=root)
    if found:
        raise RegistrationError(f"{label}: invalid {what}: {found}")
