"""How much of a call's arguments the server keeps after the call: at most
:data:`MAX_KEPT_ARGUMENTS_BYTES` of their JSON, in a provenance record and in a job's record alike.

A client may send bodies of up to 16 MiB, and what a call leaves behind lives an hour (records, jobs,
in ``provenance.sqlite3``, ``jobs.sqlite3`` or Redis), so keeping arguments whole would let one client
fill a disk, or the Redis every process shares, at megabytes a call. Arguments over the bound keep
their names and small values; their largest values are replaced, largest first, by a marker naming
the value's size and digest (:func:`kept_arguments`). The function itself always gets what was sent.

Secrets are replaced before (:func:`~nanohubmcp.schema.secret.stored_arguments`); this module only
bounds the size. It owns no I/O.
"""

from __future__ import annotations

import hashlib
from typing import Any

from ..protocol import jsonenc
from ..protocol.lone_surrogates import utf8_storable
from .secret import stored_form

__all__ = ["MAX_KEPT_ARGUMENTS_BYTES", "arguments_json", "arguments_text", "kept_arguments"]

MAX_KEPT_ARGUMENTS_BYTES = 64 * 1024
"""The arguments of a record are kept up to this size (their JSON text, bytes); beyond it the largest
values are replaced, one by one, by a marker naming their size and digest (:func:`kept_arguments`)."""

_writer = jsonenc.compact_writer(stored_form, allow_nan=True)


def arguments_json(value: object) -> str:
    """Compact JSON text of a record's arguments: a value JSON has no form for in the form
    :func:`~nanohubmcp.schema.secret.stored_form` gives it (a dataclass's or model's ``Secret`` fields
    replaced); a lone surrogate a client sent as its JSON escape
    (:func:`~nanohubmcp.protocol.lone_surrogates.utf8_storable`), so the text is stored, sized and hashed as
    UTF-8 and reads back as the arguments sent."""
    return utf8_storable(_writer(value))


def _fits(text: str) -> bool:
    return len(text) <= MAX_KEPT_ARGUMENTS_BYTES and (text.isascii() or len(text.encode()) <= MAX_KEPT_ARGUMENTS_BYTES)


def kept_arguments(arguments: dict[str, Any]) -> dict[str, Any]:
    """``arguments`` as a record keeps them: the dict itself when its :func:`arguments_json` is at most
    :data:`MAX_KEPT_ARGUMENTS_BYTES` of UTF-8, else a copy whose largest values are replaced, largest
    first, by the string ``"[not stored: N bytes of JSON, sha256:<hex>]"`` (N and the digest of that
    value's compact JSON text) until it fits, for any plausible number of arguments.

    Example:
        >>> kept_arguments({"n": 1, "data": "x" * 100_000})["data"][:30]
        '[not stored: 100002 bytes of J'
    """
    text = arguments_json(arguments)
    return arguments if _fits(text) else _replaced(arguments, text)


def arguments_text(arguments: dict[str, Any]) -> str:
    """The JSON text of :func:`kept_arguments` of ``arguments`` (what a provenance record stores)."""
    text = arguments_json(arguments)
    return text if _fits(text) else arguments_json(_replaced(arguments, text))


def _replaced(arguments: dict[str, Any], text: str) -> dict[str, Any]:
    """``arguments`` (whose JSON is ``text``) with its largest values replaced until the rest fits."""
    sized = sorted(((len(arguments_json(value).encode()), name) for name, value in arguments.items()), reverse=True)
    total = len(text.encode())
    kept = dict(arguments)
    for size, name in sized:
        if total <= MAX_KEPT_ARGUMENTS_BYTES:
            break
        value_text = arguments_json(arguments[name])
        kept[name] = f"[not stored: {size} bytes of JSON, sha256:{hashlib.sha256(value_text.encode()).hexdigest()}]"
        total -= size - len(kept[name]) - 2
    return kept
