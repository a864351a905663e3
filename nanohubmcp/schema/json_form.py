"""Whether a value given at registration (a tool's schema, its ``meta``) has a JSON form, and where not.

A value is published as JSON in every ``tools/list``: one that JSON cannot write (``inf``, ``nan``, a
``Decimal``, a set, a numpy scalar that is not a ``float``, an int of over 4,300 digits, a dict keyed by
anything but strings, a dict that holds itself) was published as ``null`` or made every ``tools/list`` fail,
so it is refused where it is given, naming where it sits. So is text holding a UTF-16 surrogate (a file name
that is not UTF-8, as ``os.listdir`` reads it): a client is sent U+FFFD in its place, and an ``enum`` value
it sends back is not the one registered.

The 4,300 digits are what the official client's JSON reader (pydantic-core) holds, whatever Python's own
int-to-text limit is: with ``PYTHONINTMAXSTRDIGITS=0`` (or ``sys.set_int_max_str_digits(0)``) the server
could write a longer int, and the client then failed to read the whole list ("number out of range").
"""

from __future__ import annotations

import math

from nanohubmcp.errors import RegistrationError
from nanohubmcp.protocol.long_ints import MAX_DIGITS, too_long
from nanohubmcp.protocol.message_values import shown_value
from nanohubmcp.protocol.nesting import MAX_JSON_DEPTH
from nanohubmcp.schema.paths import format_path

MAX_INT_DIGITS = MAX_DIGITS
"""The most digits of an int a JSON reader is sure to hold (pydantic-core's limit, Python's default one:
``protocol.long_ints``, which holds what the server reads and writes to it too)."""


_FINITE = "write a finite number or leave the keyword out"
_FINITE_DEFAULT = "write a finite number (or None) as the default, or leave the default out"
_LONG = "write a number of at most 4,300 digits, or leave it out"
_ONCE = "write each value once, not the dict or list it is inside of"
_PLAIN = "write it as a plain number, string, true/false, None, list, or dict with string keys"


def json_form_problem(value: object, path: list[str | int], *, root: str = "schema", texts: bool = True) -> str | None:
    """What in ``value`` has no JSON form and what to write instead (``"<what> at <where> has no JSON form;
    <advice>"``, ``where`` written from ``root``, the value's name: ``schema.properties.x``, ``meta.tags``),
    or None when all of it has one (a generated schema's ``default`` and ``examples`` too: a parameter's
    default of 10**5000 made every list fail). A dict or list that holds itself, or nests more than
    :data:`~nanohubmcp.protocol.nesting.MAX_JSON_DEPTH` levels (the limit a client's body and a tool's result
    are held to), is such a problem too: one named where it repeats, the other by its first levels; and so is
    text (a value or a key) holding a UTF-16 surrogate (:func:`text_problem`), unless ``texts`` is False (a
    result's ``meta``: the server sends U+FFFD in its place, and only asks here why JSON could not write it)."""
    return _problem(value, path, root, set(), texts)


def _problem(value: object, path: list[str | int], root: str, holding: set[int], texts: bool) -> str | None:
    """:func:`json_form_problem`, ``holding`` the ids of the dicts and lists ``value`` is inside of."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, str):
        return None if not texts or value.isascii() else text_problem(value, format_path(root, path))
    where = format_path(root, path)
    if isinstance(value, int):
        if too_long(value):
            return f"an int of over 4,300 digits at {where} has no JSON form; {_LONG}"
        return None
    if isinstance(value, float):
        if math.isfinite(value):
            return None
        return f"{value!r} at {where} has no JSON form; {_FINITE_DEFAULT if 'default' in path else _FINITE}"
    if isinstance(value, (dict, list, tuple)):
        if id(value) in holding:
            return f"{_a(type(value).__name__)} at {where} holds itself and has no JSON form; {_ONCE}"
        if len(path) >= MAX_JSON_DEPTH:
            return (f"the value at {format_path(root, path[:3])}… nests more than {MAX_JSON_DEPTH} levels deep, "
                    "past the limit of the server's JSON; write it in fewer levels")
        holding.add(id(value))
        try:
            return _member_problem(value, path, root, holding, texts)
        finally:
            holding.discard(id(value))
    if type(value).__name__ == "bool" or type(value).__name__ == "bool_":  # numpy's, not Python's (above)
        return f"a numpy bool ({bool(value)}) at {where} has no JSON form; write the Python bool {bool(value)}"
    return f"{_a(type(value).__name__)} ({shown_value(value)}) at {where} has no JSON form; {_PLAIN}"


def text_problem(text: str, where: str) -> str | None:
    """What is wrong with ``text`` (at ``where``) for a client, or None: a UTF-16 surrogate in it, which is
    no character (``"the text 'r\\udce9sultat' at <where> holds the UTF-16 surrogate '\\udce9' ...; write
    Unicode text, e.g. 'résultat'"``)."""
    from nanohubmcp.protocol.lone_surrogates import as_unicode, surrogate_in  # (only for text that is not ASCII)

    found = surrogate_in(text)
    if found is None:
        return None
    return (f"the text {shown_value(text)} at {where} holds the UTF-16 surrogate {found!r}, which is no character "
            "(a file name that is not UTF-8 holds one, as os.listdir reads it): a client is sent U+FFFD in its "
            "place; write Unicode text, e.g. "
            f"{shown_value(as_unicode(text))}")


def _a(noun: str) -> str:
    """``noun`` with its indefinite article (``an int64``, ``a set``; ``a UUID``, ``a uint8``: said "you")."""
    return f"{'an' if noun[:1].lower() in 'aeio' else 'a'} {noun}"


def _member_problem(value: dict[object, object] | list[object] | tuple[object, ...], path: list[str | int],
                    root: str, holding: set[int], texts: bool) -> str | None:
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return (f"{_a(type(key).__name__)} key ({shown_value(key)}) at {format_path(root, path)} has no "
                        f"JSON form; {_PLAIN}")
            if texts and not key.isascii():
                found = text_problem(key, f"a key of {format_path(root, path)}")
                if found:
                    return found
            found = _problem(item, [*path, key], root, holding, texts)
            if found:
                return found
        return None
    for index, item in enumerate(value):
        found = _problem(item, [*path, index], root, holding, texts)
        if found:
            return found
    return None


def check_json_form(value: object, label: str, what: str, *, root: str = "schema") -> None:
    """Raise ``RegistrationError`` ``"<label>: invalid <what>: <what to fix>"`` when :func:`json_form_problem`
    finds something in ``value`` (named ``root`` in the message) with no JSON form."""
    found = json_form_problem(value, [], root=root)
    if found:
        raise RegistrationError(f"{label}: invalid {what}: {found}")
