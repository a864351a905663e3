"""What a provenance record keeps of a call's result: its JSON text as the wire writes it, that text's
digest, its resource links, and a failed call's error text.

A result's digest is the SHA-256 of its JSON (without ``_meta``) as the wire writes it (:func:`digest_of`,
:func:`result_text`): a pre-encoded result and a plain one of the same values have one digest, and a large
array's data is hashed a part at a time, never copied into one string with the rest. A result up to
:data:`MAX_KEPT_RESULT_BYTES` is kept as that text in its record (its digest is made when the record is
read: :func:`.rows.view`). The commonest result, one ASCII text block, is written without the encoder
(:func:`one_text_block`). Pure: no I/O, no state.
"""

from __future__ import annotations

import json
from typing import Any

from ...protocol import compact_json, jsonenc
from ...protocol.encoded import Encoded
from .rows import digest_parts, digest_text


def _refuse(value: object) -> object:
    raise TypeError(f"{type(value).__name__} is not a plain JSON value")


_wire_text = compact_json.compact_writer(_refuse, allow_nan=False)
"""What :func:`~nanohubmcp.protocol.jsonenc.dumps` writes for a value without pre-encoded data,
NaN or infinities (the same options: compact, ``ensure_ascii=False``, ``allow_nan=False``);
raises TypeError/ValueError for the rest."""

MAX_KEPT_RESULT_BYTES = 64 * 1024
"""A result up to this size (its digested JSON) is kept in its record (for the RO-Crate export);
a larger one is named by its digest and resource links only."""


def digest_of(result: dict[str, Any]) -> tuple[str, str | None]:
    """``(digest, JSON text kept or None)`` of a ``CallToolResult``.

    The digest is ``"sha256:"`` and the hex SHA-256 of the result without ``_meta`` written as
    the wire writes it (:func:`result_text`). The text is kept (returned) when its UTF-8 form is
    at most :data:`MAX_KEPT_RESULT_BYTES` long.

    Until 2026-12 the digest hashed the result with sorted keys and ASCII escapes (the data
    decoded and written again); records made then keep the digest they were given.
    """
    kept, digest = kept_and_digest({key: value for key, value in result.items() if key != "_meta"})
    return digest or digest_text(kept or ""), kept


def kept_and_digest(result: dict[str, Any]) -> tuple[str | None, str | None]:
    """``(text, None)`` of a result whose :func:`result_text` is short enough to keep
    (:func:`kept_size`: its digest is made when the record is read), else ``(None, digest)``, hashed
    from the text's parts: a large array's data is never copied into one string with the rest."""
    parts = result_parts(result)
    if len(parts) == 1:
        return (parts[0], None) if kept_size(parts[0]) else (None, digest_parts(parts))
    if sum(map(len, parts)) <= MAX_KEPT_RESULT_BYTES:
        text = "".join(parts)
        if kept_size(text):
            return text, None
    return None, digest_parts(parts)


def result_text(result: dict[str, Any]) -> str:
    """The JSON text of ``result`` (a ``CallToolResult`` without ``_meta``) that its digest hashes.

    As the wire writes it (:func:`~nanohubmcp.protocol.jsonenc.dumpb`): compact JSON, keys in
    the order the result holds them, text as UTF-8, NaN and infinities as ``null``; an array's or
    table's data kept as JSON text written as that text, which is what the encoder writes for
    its values — so a pre-encoded result and a plain one of the same values have one digest, and
    the data is never decoded and written again. A result the wire encoder refuses (a value JSON
    has no form for) is written with Python's ``json`` instead, such a value as its ``str`` (a result
    whose dict key JSON has no form for: the JSON string of its ``repr``).
    """
    return "".join(result_parts(result))


def result_parts(result: dict[str, Any]) -> list[str]:
    """:func:`result_text` as the parts it is made of (``jsonenc.dumps_parts``: pre-encoded data a part
    of its own)."""
    if not pre_encoded(result.get("structuredContent")):
        try:  # the wire encoder's output when nothing needs its special cases (most results)
            text = _wire_text(result)
            if not text.isascii():
                text.encode()  # a lone surrogate has no UTF-8 form (UnicodeEncodeError): the wire escapes it
            return [text]
        except (TypeError, ValueError):  # pre-encoded data, NaN, a lone surrogate: the wire encoder itself
            pass
    try:
        parts = jsonenc.dumps_parts(result)
        for part in parts:
            if not part.isascii():
                part.encode()
        return parts
    except UnicodeEncodeError:  # a lone surrogate: written with \u escapes, as the wire does
        pass
    except (TypeError, ValueError):
        return [_python_text(result)]
    try:
        return [jsonenc.dumpb(result).decode()]
    except (TypeError, ValueError):
        return [_python_text(result)]


def _python_text(result: dict[str, Any]) -> str:
    """A result the wire encoder refuses (a middleware's value JSON has no form for: the client got the
    error -32603) written with Python's ``json``, such a value as its ``str``; one that even that refuses
    (a dict key JSON has no form for: a numpy integer) as the JSON string of its ``repr``."""
    try:
        return json.dumps(jsonenc.plain(result), separators=(",", ":"), default=str)
    except (TypeError, ValueError):
        return json.dumps(repr(result))


def pre_encoded(structured: object) -> bool:
    """Whether ``structured`` is an array's or a table's ``structuredContent`` (its data's JSON text,
    ``encoded.Encoded``): the plain writer would refuse it only after writing the content before it, the data's
    text block (24 MB for a 300,000-row table, escaped whole and dropped) — the parts are asked for at once."""
    return isinstance(structured, dict) and structured.get("result").__class__ is Encoded


_TEXT_RESULT_KEYS = ("content", "isError")
_TEXT_BLOCK_KEYS = ("type", "text")
_string = json.encoder.encode_basestring
"""A string's JSON text as the wire's encoder writes it (quoted, escaped, not ASCII-escaped)."""
_MOST_TEXT = MAX_KEPT_RESULT_BYTES - 64
"""The longest text :func:`one_text_block` keeps, less one (the block's own characters fit in the rest)."""


def one_text_block(result: dict[str, Any]) -> str | None:
    """:func:`result_text` of the commonest result, made without the encoder, or None for any other.

    That result is ``{"content": [{"type": "text", "text": T}], "isError": B}`` in that key order, of
    plain dicts, a list, an ASCII ``str`` (no surrogate to escape) and a ``bool`` (a tool returning a
    scalar or a string): its text is the encoder's for those values, byte for byte, and it names no
    resource links. The C encoder's call (its argument parsing, its accumulator, the chunks' join)
    costs ~11k instructions for this one block; the checks here and one string's escaping ~3k
    (bench/provenance.md, ninth pass)."""
    try:
        content = result["content"]
        (block,) = content
        text = block["text"]
    except (KeyError, TypeError, ValueError):
        return None
    if (
        type(content) is list
        and type(block) is dict
        and type(text) is str
        and tuple(result) == _TEXT_RESULT_KEYS
        and tuple(block) == _TEXT_BLOCK_KEYS
        and block["type"] == "text"
        and type(block["type"]) is str
        and text.isascii()
        and len(text) < _MOST_TEXT
    ):
        failed = result["isError"]
        if failed is False:
            return f'{{"content":[{{"type":"text","text":{_string(text)}}}],"isError":false}}'
        if failed is True:
            return f'{{"content":[{{"type":"text","text":{_string(text)}}}],"isError":true}}'
    return None


def kept_size(text: str) -> bool:
    """Whether a result's text is short enough to be kept in its record (:data:`MAX_KEPT_RESULT_BYTES`)."""
    return len(text) <= MAX_KEPT_RESULT_BYTES if text.isascii() else len(text.encode()) <= MAX_KEPT_RESULT_BYTES


def resource_links(result: dict[str, Any]) -> list[str]:
    """The URIs of the ``resource_link`` blocks (and embedded resources) of a result."""
    links = []
    for block in result.get("content") or ():
        if isinstance(block, dict):
            if block.get("type") == "resource_link" and isinstance(block.get("uri"), str):
                links.append(block["uri"])
            elif block.get("type") == "resource" and isinstance(block.get("resource"), dict):
                uri = block["resource"].get("uri")
                if isinstance(uri, str):
                    links.append(uri)
    return links


ERROR_CHARS = 2000
"""How much of a failed call's error text (or of the message a job ended with) its record keeps (the
whole result is kept apart)."""


def error_of(result: dict[str, Any]) -> str:
    """A failed call's error: the text of its result's first text block, cut to :data:`ERROR_CHARS`."""
    for block in result.get("content") or ():
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            return cut(block["text"])
    return "the tool answered an error result"


def cut(text: str) -> str:
    """``text`` cut to :data:`ERROR_CHARS` (and ``…``) when longer."""
    return text if len(text) <= ERROR_CHARS else text[:ERROR_CHARS] + "…"
