"""A kept result read in parts, each small enough for one server-sent event.

A ``resources/read`` whose answer goes as one SSE event (legacy SSE always; Streamable HTTP once a log or
progress message of the read went first) is bounded by the server's ``max_event_bytes`` (1 MiB by default, the
official client's cap), and a kept large result is usually larger. So a kept result also reads in parts, through
the resource template :data:`PARTS_TEMPLATE` (``nanohubmcp://results/{id}{?part}``, listed by
``resources/templates/list``): ``nanohubmcp://results/<token>.txt?part=0`` to ``?part=<count - 1>``, each one
``ReadResourceResult`` whose one content carries the kept result's MIME type and:

- a text (``text/*``, ``application/json``): the characters of a range of its UTF-8 bytes of at most
  :func:`part_bytes` (plus the 3 of one character), cut on a character's first byte and never between the two
  halves of a UTF-16 surrogate pair the text holds (kept ``surrogatepass``). The parts' texts joined are the text.
- anything else: the base64 of a range of :func:`part_bytes` bytes (a multiple of 3), so the parts' bytes joined
  are the data.

A part's size depends only on the bound (``max_event_bytes``, or 1 MiB when there is none) and on whether the
result is text, so the number of parts (:func:`part_count`) is known from the kept size alone: the note beside a
result's link and the refusal of a whole read name it. The worst case is counted: a text's character may be
escaped as six (``\\u001f``), base64 writes 4 characters for 3 bytes, and the content's URI (up to 8,192
characters, as asked for) and the JSON-RPC envelope take their room too.

Source: MCP 2025-11-25, Server § Resources § Resource templates (RFC 6570 form-style query expansion).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from typing import Any, Final

from ...errors import InvalidParams
from ...protocol.client_event_cap import CLIENT_EVENT_BYTES, EVENT_ENVELOPE_BYTES
from . import RESULT_URI_PREFIX

__all__ = ["PARTS_TEMPLATE", "cut_part", "is_textual", "part_bytes", "part_count", "part_uri", "parts_note",
           "parts_template", "split_part"]

PARTS_TEMPLATE: Final = RESULT_URI_PREFIX + "{id}{?part}"
"""The URI template a kept result's parts read by (RFC 6570 level 3: ``?part=N``)."""

_URI_ROOM: Final = 6 * 8192 + 512
"""Bytes a part's content keeps for its URI (8,192 characters at most, each escaped as six at worst) and its
``uri``/``mimeType`` keys."""
_PART_QUERY = re.compile(r"part=(0|[1-9][0-9]{0,8})")

ReadAt = Callable[[int, int], bytes]
"""``read_at(offset, count)``: up to ``count`` bytes of the kept data from byte ``offset``."""


def is_textual(mime_type: str) -> bool:
    """Whether a kept result of ``mime_type`` reads as text (else as a blob), as the store reads it whole."""
    return mime_type.startswith("text/") or mime_type == "application/json"


def part_bytes(bound: int | None, textual: bool) -> int:
    """The most bytes of the kept data in one part read as one event of at most ``bound`` bytes (the server's
    ``max_event_bytes``; None: the official client's 1 MiB): a sixth of the room for a text (plus up to 3 to end on
    a character), three quarters of it for a blob, rounded down to whole base64 quanta."""
    room = (bound or CLIENT_EVENT_BYTES) - EVENT_ENVELOPE_BYTES - _URI_ROOM
    return room // 6 if textual else room // 4 * 3


def part_count(size: int, bound: int | None, textual: bool) -> int:
    """How many parts a kept result of ``size`` bytes reads in (at least 1)."""
    step = part_bytes(bound, textual)
    return max(1, -(-size // step))


def part_uri(uri: str, index: int) -> str:
    """The URI of part ``index`` of the kept result ``uri``."""
    return f"{uri}?part={index}"


def parts_note(uri: str, size: int, mime_type: str | None, bound: int | None) -> str:
    """What a link's note and a whole read's refusal say of ``uri``'s parts ('' when it reads in one)."""
    count = part_count(size, bound, is_textual(mime_type or ""))
    if count < 2:
        return ""
    return (f"in {count} parts, {part_uri(uri, 0)} to ?part={count - 1}, each small enough for one server-sent "
            f"event (template {PARTS_TEMPLATE})")


def split_part(uri: str) -> tuple[str, int | None]:
    """``uri`` (in its comparison form) as the kept result's URI and the part it names (None: the whole).

    Raises:
        InvalidParams: (-32602) a query other than one ``part=N`` (N a decimal integer).
    """
    base, mark, query = uri.partition("?")
    if not mark:
        return uri, None
    found = _PART_QUERY.fullmatch(query)
    if found is None:
        raise InvalidParams(f"Invalid URI for resource template '{PARTS_TEMPLATE}': a kept result's URI takes one "
                            f"query, ?part=N (N from 0), not ?{query[:64]}", {"uri": uri[:512]})
    return base, int(found.group(1))


def cut_part(read_at: ReadAt, size: int, mime_type: str, index: int, bound: int | None,
             *, uri: str, errors: str) -> dict[str, Any]:
    """Part ``index`` of a kept result of ``size`` bytes and ``mime_type``, read by ``read_at``, as a
    ``ReadResourceResult`` naming ``uri`` (``errors``: how its text is decoded, as the store decodes it whole).

    Raises:
        InvalidParams: (-32602) ``index`` is not below :func:`part_count`, naming the range.
    """
    textual = is_textual(mime_type)
    step, count = part_bytes(bound, textual), part_count(size, bound, textual)
    if index >= count:
        raise InvalidParams(f"part {index} of {uri.partition('?')[0]} does not exist: it reads in {count} "
                            f"part{'s' if count > 1 else ''}, 0 to {count - 1}",
                            {"uri": uri, "part": index, "parts": count})
    item: dict[str, Any] = {"uri": uri, "mimeType": mime_type}
    if not textual:
        item["blob"] = base64.b64encode(read_at(index * step, step)).decode("ascii")
    else:
        start, end = _boundary(read_at, size, index * step), _boundary(read_at, size, (index + 1) * step)
        item["text"] = read_at(start, end - start).decode("utf-8", errors)
    return {"contents": [item]}


def _boundary(read_at: ReadAt, size: int, at: int) -> int:
    """The first byte at or after ``at`` that begins a character and does not split a surrogate pair."""
    if at <= 0 or at >= size:
        return max(0, min(at, size))
    low = max(0, at - 3)
    around = read_at(low, at - low + 6)  # up to 3 bytes before ``at`` and up to 6 from it
    pos = at - low
    shift = 0
    while shift < 3 and pos + shift < len(around) and 0x80 <= around[pos + shift] < 0xC0:
        shift += 1  # a continuation byte: the character began before
    begin = pos + shift
    if begin >= 3 and _surrogate(around[begin - 3:begin], 0xA0) and _surrogate(around[begin:begin + 3], 0xB0):
        shift += 3  # a high surrogate then its low one: one character as the wire writes it
    return min(at + shift, size)


def _surrogate(three: bytes, low: int) -> bool:
    """Whether ``three`` is a surrogate's ``surrogatepass`` UTF-8 (ED A0-AF: high; ED B0-BF: low)."""
    return len(three) == 3 and three[0] == 0xED and low <= three[1] < low + 0x10


def parts_template() -> dict[str, Any]:
    """The ``resources/templates/list`` entry of :data:`PARTS_TEMPLATE`."""
    return {"uriTemplate": PARTS_TEMPLATE, "name": "kept-result-part",
            "title": "A part of a large result the server kept",
            "description": "A part of a kept result (a resource_link's nanohubmcp://results/... URI), small enough "
                           "for one server-sent event: ?part=0, 1, ... as the link's note says; text parts join to "
                           "its text, blob parts are base64 byte ranges."}
