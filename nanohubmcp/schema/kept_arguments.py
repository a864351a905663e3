"""How much of a call's arguments the server keeps after the call: at most
:data:`MAX_KEPT_ARGUMENTS_BYTES` of their JSON, in a provenance record and in a job's record alike.

A client may send bodies of up to 16 MiB, and what a call leaves behind lives an hour (records, jobs,
in ``provenance.sqlite3``, ``jobs.sqlite3`` or Redis), so keeping arguments whole would let one client
fill a disk, or the Redis every process shares, at megabytes a call. Arguments over the bound keep
their names and small values; their largest values are replaced, largest first, by a marker naming
the value's size and digest; arguments whose names and small values alone are over the bound (a tool
taking ``**kwargs`` sent 100,000 of them) are kept as one marker naming the size and digest of them
all (:func:`kept_arguments`). The function itself always gets what was sent.

Each value is written to JSON once (its text sized, and hashed when it is replaced); the arguments'
text is joined from those texts. Secrets are replaced before
(:func:`~nanohubmcp.schema.secret.stored_arguments`); this module only bounds the size. It owns no I/O.
"""

from __future__ import annotations

import hashlib
from typing import Any

from ..protocol import compact_json
from ..protocol.lone_surrogates import utf8_storable
from .secret import stored_form

__all__ = ["MAX_KEPT_ARGUMENTS_BYTES", "NOT_STORED_KEY", "arguments_json", "arguments_text", "kept_arguments"]

MAX_KEPT_ARGUMENTS_BYTES = 64 * 1024
"""The arguments of a record are kept up to this size (their JSON text, bytes), whatever their number
and shape (:func:`kept_arguments`)."""
NOT_STORED_KEY = "[not stored]"
"""The one key of kept arguments whose names and small values alone were over the bound."""

_writer = compact_json.compact_writer(stored_form, allow_nan=True)
_DIGEST_CHARS = 64


def arguments_json(value: object) -> str:
    """Compact JSON text of a record's arguments: a value JSON has no form for in the form
    :func:`~nanohubmcp.schema.secret.stored_form` gives it (a dataclass's or model's ``Secret`` fields
    replaced); a lone surrogate a client sent as its JSON escape
    (:func:`~nanohubmcp.protocol.lone_surrogates.utf8_storable`), so the text is stored, sized and hashed as
    UTF-8 and reads back as the arguments sent."""
    return utf8_storable(_writer(value))


def kept_arguments(arguments: dict[str, Any]) -> dict[str, Any]:
    """``arguments`` as a record keeps them, at most :data:`MAX_KEPT_ARGUMENTS_BYTES` of UTF-8 JSON
    (:func:`arguments_json`) for any number and shape of arguments:

    - the dict itself when its JSON fits;
    - else a copy whose largest values are replaced, largest first, by the string
      ``"[not stored: N bytes of JSON, sha256:<hex>]"`` (N and the digest of that value's compact JSON
      text) until it fits; a value whose JSON is not longer than its marker is never replaced;
    - else, when the names and such small values alone are over the bound, the dict
      ``{"[not stored]": "N bytes of JSON in K arguments, sha256:<hex>"}`` (of the whole arguments' text).

    Kept arguments are kept as they are (the function is idempotent), and each value is written to
    JSON once. Raises what :func:`arguments_json` raises for a value (RecursionError for one that
    contains itself).

    Example:
        >>> kept_arguments({"n": 1, "data": "x" * 100_000})["data"][:30]
        '[not stored: 100002 bytes of J'
        >>> kept_arguments({f"k{i}": i for i in range(100_000)})["[not stored]"][:38]
        '1477781 bytes of JSON in 100000 argume'
    """
    texts = _Texts(arguments)
    if texts.total <= MAX_KEPT_ARGUMENTS_BYTES:
        return arguments
    markers = texts.markers()
    if markers is None:
        return {NOT_STORED_KEY: texts.whole_marker()}
    kept = dict(arguments)
    for index, marker in markers.items():
        kept[texts.names[index]] = marker
    return kept


def arguments_text(arguments: dict[str, Any], written: str | None = None) -> str:
    """The JSON text of :func:`kept_arguments` of ``arguments`` (what a provenance record stores).

    ``written``: :func:`arguments_json` of ``arguments`` when the caller wrote it already; it is the
    answer when it fits, else the arguments are written again value by value."""
    if written is not None and len(written) <= MAX_KEPT_ARGUMENTS_BYTES and _size(written) <= MAX_KEPT_ARGUMENTS_BYTES:
        return written
    texts = _Texts(arguments)
    if texts.total <= MAX_KEPT_ARGUMENTS_BYTES:
        return texts.joined()
    markers = texts.markers()
    if markers is None:
        return arguments_json({NOT_STORED_KEY: texts.whole_marker()})
    return texts.joined({index: arguments_json(marker) for index, marker in markers.items()})


def _size(text: str) -> int:
    """Bytes of ``text`` as UTF-8 (a text of :func:`arguments_json`: it encodes)."""
    return len(text) if text.isascii() else len(text.encode())


def _key(name: object) -> str:
    """A name as the writer writes it as a key of the arguments' object (a string: as a string value)."""
    if type(name) is str:
        return arguments_json(name)
    return arguments_json({name: 0})[1:-3]  # (an int or float key of server.call: as the writer spells it)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


class _Texts:
    """The JSON texts of ``arguments``' names and values, each written once, and their total size."""

    def __init__(self, arguments: dict[str, Any]) -> None:
        self.names = list(arguments)
        self.keys = [_key(name) for name in self.names]
        self.values = [arguments_json(value) for value in arguments.values()]
        self.sizes = [_size(value) for value in self.values]
        count = len(self.names)
        # braces, commas between entries, and each entry's key and colon
        self.total = 2 + max(count - 1, 0) + sum(map(_size, self.keys)) + count + sum(self.sizes)

    def joined(self, replaced: dict[int, str] | None = None) -> str:
        """The arguments' JSON text (the writer's own), with the value texts of ``replaced`` (index -> text)."""
        values = self.values
        if replaced:
            values = [replaced.get(index, value) for index, value in enumerate(values)]
        return "{" + ",".join(key + ":" + value for key, value in zip(self.keys, values, strict=True)) + "}"

    def markers(self) -> dict[int, str] | None:
        """The markers (value index -> marker text) of the largest values that bring the total within the
        bound, largest first, never one for a value whose JSON is not longer than its marker's; None when
        replacing all those does not."""
        total = self.total
        found: dict[int, str] = {}
        for index in sorted(range(len(self.sizes)), key=self.sizes.__getitem__, reverse=True):
            if total <= MAX_KEPT_ARGUMENTS_BYTES:
                break
            size = self.sizes[index]
            head = f"[not stored: {size} bytes of JSON, sha256:"
            marker_size = len(head) + _DIGEST_CHARS + 3  # "]" and the string's quotes
            if size <= marker_size:
                break  # (and no value after it is larger)
            found[index] = f"{head}{_digest(self.values[index])}]"
            total -= size - marker_size
        return found if total <= MAX_KEPT_ARGUMENTS_BYTES else None

    def whole_marker(self) -> str:
        """What stands for all the arguments: their JSON's size, number and digest."""
        return f"{self.total} bytes of JSON in {len(self.names)} arguments, sha256:{_digest(self.joined())}"
