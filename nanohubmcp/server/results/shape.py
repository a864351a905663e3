"""What a tool, resource or prompt function returned, turned into the MCP result the wire carries.

Tools here; resources in :mod:`.resources` and prompts in :mod:`.prompts`, re-exported here (the
handlers' one import), with the value reading they share in :mod:`.plain`.

Pure functions: no I/O (except reading the file of an ``Image(path=...)``), no Tornado, no server state.
The caller (the method handlers) validates structured content against an output schema, adds the 2026
``resultType`` and catches the exceptions documented here. All JSON text comes from ``protocol.jsonenc``,
so NaN and ±Infinity become ``null`` and never reach the wire (they are not JSON, RFC 8259 § 6).

Tool return values (MCP 2025-11-25, Server § Tools § Tool result; 2026-07-28 the same):

=============================  ==============================================================
returned                       ``content`` / ``structuredContent``
=============================  ==============================================================
``ToolResult``                 as given (structured content also as a JSON text block when the
                               content is empty)
``None``                       ``[]`` (a valid, empty result); with ``data_only`` (REST)
                               ``structuredContent`` ``{"result": null}``
``str``                        one text block, the string itself
``int``/``float``/``bool``     one text block in JSON spelling: ``5``, ``5.0``, ``true``; NaN, ±Infinity ->
                               ``NaN``, ``Infinity``, ``-Infinity`` (text, not JSON)
``enum.Enum`` member           its ``.value``, by the rules here
``dict`` (any Mapping),        a text block with the JSON text, and ``structuredContent`` = the same
dataclass instance             value (from 2025-06-18; non-finite floats -> null)
content object, ``Image``,     that block
``Audio``, wire-shaped dict
inside a list
``bytes``/``bytearray``        an image or audio block when the magic bytes say so, else an embedded
                               resource ``{uri: BYTES_URI, mimeType, blob}``
list/tuple holding content     one block per item (strings become text blocks, bytes as above)
list/dict mixing pictures      figures/images (PNG) and content as blocks, then the rest as data: its
or content with data; a list   JSON text and ``structuredContent`` (see ``convert.mixed``); bytes among a
mixing bytes with data         list's items are blocks as above, with or without a picture there
other list/tuple (data)        one text block with the JSON text, and ``structuredContent``
                               ``{"result": [...]}`` as for an array (from 2025-06-18); under an
                               output schema of ``"type": "array"`` the list itself (2026-07-28+)
other object with ``__str__``  one text block, ``str(value)`` (datetime, Path, Decimal, ...)
anything else                  ``TypeError``
data nested past 128 levels    ``nesting.NestedTooDeep`` (the limit a client's JSON is held to)
=============================  ==============================================================

With a sink, each image or audio block and each embedded resource (a file, bytes) over ``max_inline_bytes`` — of
a figure, an image, bytes, a list of blocks, a plot with its data alike; in a ``ToolResult`` the embedded resources
only — is kept in the store and linked in its place, the notes saying so after all the blocks
(:func:`.convert.parts.blocks_kept`).

``structuredContent`` is left out where the negotiated version has no room for it: before 2025-06-18
never, in 2025-06-18 and 2025-11-25 only a JSON object, from 2026-07-28 any JSON value. Primitives under
an object output schema are not wrapped: the handler's validation reports the mismatch.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ...protocol import jsondec
from ...protocol.content import (
    UNSET,
    AudioContent,
    EmbeddedResource,
    ImageContent,
    is_content,
    scalar_text,
    sniff_mime_type,
    to_content_block,
)
from ...protocol.encoded import Encoded, is_object
from ...protocol.result_types import ToolResult
from ...protocol.versions import V2025_11_25, ProtocolVersion
from . import convert
from .convert import mixed, parts
from .json_values import json_text, refused_by_name, to_json
from .meta_values import check_meta_values
from .named_blocks import named
from .plain import has_str, is_bytes, plain
from .prompts import prompt_messages, prompt_result
from .resources import resource_contents, resource_result
from .sink import ResultSink

__all__ = [
    "BYTES_URI",
    "UNSET",
    "json_spelled",
    "prompt_messages",
    "prompt_result",
    "resource_contents",
    "resource_result",
    "structured_value",
    "tool_result",
]

Wire = dict[str, Any]

BYTES_URI: Final = parts.BYTES_URI
"""URI of the embedded resource that carries bytes a tool returned (neither image nor audio)."""


# ---------------------------------------------------------------- helpers


def _is_block_list(items: list[Any]) -> bool:
    """A list of content: at least one content object, bytes or picture, and nothing but those and strings."""
    if set(map(type, items)) <= mixed.LEAF_TYPES:  # one C pass: a list of numbers is data, at any length
        return False
    kinds = [is_content(i) or is_bytes(i) or mixed.is_picture(i) for i in items]
    return any(kinds) and all(k or isinstance(i, str) for k, i in zip(kinds, items, strict=True))


def _text(text: str) -> Wire:
    return {"type": "text", "text": text}


# ---------------------------------------------------------------- tools


def _bytes_block(data: bytes | bytearray | memoryview) -> Wire:
    mime = sniff_mime_type(data)
    if mime and mime.startswith("image/"):
        return ImageContent(bytes(data), mime).to_wire()
    if mime and mime.startswith("audio/"):
        return AudioContent(bytes(data), mime).to_wire()
    fallback = mime or "application/octet-stream"
    return EmbeddedResource(BYTES_URI, blob=bytes(data), mime_type=fallback).to_wire()


def _block(item: object, sink: ResultSink | None) -> Wire:
    if is_bytes(item):
        return _bytes_block(item)
    if mixed.is_picture(item):
        picture = convert.convert(item, figure_dpi=sink.options.figure_dpi if sink else None)
        if picture is not None:
            return picture.blocks[0]
    return to_content_block(item)


PLAIN_TYPES: Final = frozenset({str, int, float, bool})
"""Exact types whose result is one text block, shaped without a detour (no conversion, no sink)."""
SCALAR_TYPES: Final = frozenset({int, float, bool})
"""Exact types whose result is one text block in their JSON spelling (never offloaded)."""


def _tool_parts(value: object, sink: ResultSink | None = None, data_only: bool = False,
                bare_lists: bool = False) -> tuple[list[Wire], Any]:
    """Return ``(content blocks, structured content or UNSET)`` for a non-ToolResult value
    (``bare_lists``: a list of data is its own structured content, not ``{"result": [...]}``)."""
    if type(value) is str:
        if parts.too_big(sink, len(value)):  # characters: a lower bound of its bytes
            return parts.offload_text(value, sink), UNSET  # type: ignore[arg-type]  # too_big: a sink
        parts.held(sink, len(value), at_least=True)
        return [_text(value)], UNSET
    if type(value) in PLAIN_TYPES and isinstance(value, (bool, int, float)):
        return [{"type": "text", "text": scalar_text(value)}], UNSET  # JSON spelling; NaN/Infinity spelled out
    value = plain(value)
    if convert.recognised(value):
        found, value = convert.scalar(value)
        if not found:
            with refused_by_name(value, "the tool's result"):  # an object array's set: named, as in a dict
                converted = convert.convert(value, figure_dpi=sink.options.figure_dpi if sink else None)
                if converted is not None:
                    return parts.converted_parts(converted, sink, data_only=data_only)
    if value is None:  # no content; REST's data is null (``{"result": null}``), not an empty list
        return [], {"result": None} if data_only else UNSET
    if isinstance(value, str):
        return [_text(value)], UNSET
    if isinstance(value, (bool, int, float)):
        return [_text(scalar_text(value))], UNSET
    if type(value) is list and set(map(type, value)) <= mixed.LEAF_TYPES:
        return _data_list(value, sink, bare_lists)  # numbers and strings: one C pass decides it is data
    if isinstance(value, (dict, list)):
        split = mixed.split(value)
        if split is not None and split.has_data:
            return _mixed_parts(split, sink, data_only)
    if isinstance(value, dict):
        text = json_text(value, "the tool's result")
        if parts.too_big(sink, len(text)):
            return parts.offload_json(text, sink), UNSET  # type: ignore[arg-type]  # too_big: a sink
        parts.held(sink, len(text))
        # A large dict's structured content is its text, written once (as a list's): read back as a dict, it
        # was written again where the answer is sent, on the event loop (1M keys: ~5 s there).
        return [_text(text)], Encoded(text) if len(text) > convert.COSTLY_TEXT else jsondec.loads(text)
    if isinstance(value, list):
        if _is_block_list(value):
            return parts.blocks_kept([_block(i, sink) for i in value], sink), UNSET
        return _data_list(value, sink, bare_lists)
    if is_bytes(value):
        size = (memoryview(value).nbytes + 2) // 3 * 4  # its base64 text
        if not parts.keeps_file(sink, size):
            parts.held(sink, size, at_least=True)
        return parts.blocks_kept([_bytes_block(value)], sink), UNSET
    if is_content(value):
        return parts.blocks_kept([to_content_block(value)], sink), UNSET
    if has_str(value):
        return [_text(str(value))], UNSET
    raise TypeError(
        f"a tool returned a value of type {type(value).__name__}, which has no MCP form; return a str, number, "
        "dict, list, Image, content object or ToolResult"
    )


def _data_list(value: list[Any], sink: ResultSink | None, bare: bool) -> tuple[list[Wire], Any]:
    """A list of data as one JSON text block (offloaded when too big) and as structured content,
    ``{"result": [...]}`` as an array's (``bare``: the list itself). Its JSON is written once, for
    both: the structured list is that text (``encoded.Encoded``), read back only by code that reads it."""
    text = json_text(value, "the tool's result")
    if parts.too_big(sink, len(text)):
        return parts.offload_json(text, sink), UNSET  # type: ignore[arg-type]  # too_big: a sink
    parts.held(sink, len(text))  # (once: the text block and the structured content are one text)
    data = Encoded(text)
    return [_text(text)], data if bare else {"result": data}


def _mixed_parts(split: mixed.Split, sink: ResultSink | None, data_only: bool = False) -> tuple[list[Wire], Any]:
    """Pictures and content as blocks, then the data as JSON text and structured content. ``data_only``
    (REST), for a list: the data is the whole list, each block named in its place (``[fig, "cap", {"n": 1}]``
    -> ``{"result": ["<image: content[0]>", "cap", {"n": 1}]}``), so that no block is dropped silently."""
    blocks = [_block(piece, sink) for piece in split.pieces]
    if data_only and split.in_place is not None:
        names = named(blocks)  # (a picture inside an earlier data item has its block before the next piece's)
        whole = [item if index is None else names[index] for index, item in split.in_place]
        data = {"result": to_json(whole, "the tool's result")[1]}
    else:
        data = to_json(split.data, "the tool's result")[1]
    return parts.converted_parts(convert.Converted(data=data, has_data=True, blocks=blocks), sink)


def _inline(sink: ResultSink | None) -> ResultSink | None:
    return None if sink is None else ResultSink(sink.options)


def _structured_allowed(value: object, version: str) -> bool:
    allows = version if isinstance(version, ProtocolVersion) else ProtocolVersion.of(version)
    if not allows.structured_content:
        return False
    return allows.modern or is_object(value)


def structured_value(value: object, output_schema: Mapping[str, Any] | None = None) -> Any:
    """Return what a declared output schema must be checked against, or ``UNSET`` when there is none.

    Input: a tool's return value and its output schema. Output: a ``ToolResult``'s
    ``structured_content``; for None, str, numbers, bools, dicts and dataclasses the value as it will
    read in JSON (NaN/±Infinity as None); for a list (or tuple) of data ``{"result": [...]}``, as for
    an array, or the list itself under a schema of ``"type": "array"``; ``UNSET`` for content
    (blocks, ``Image``, bytes) and other objects. (MCP 2025-11-25, Server § Tools § Output schema.)

    Raises:
        TypeError: the value cannot be written as JSON.
    """
    if isinstance(value, ToolResult):
        if not value.has_structured_content:
            return UNSET
        return to_json(value.structured_content, "structured_content")[1]
    value = plain(value)
    if convert.recognised(value):
        found, value = convert.scalar(value)
        if not found:
            data = convert.data_of(value)
            return UNSET if data is UNSET else to_json(data, "the tool's result")[1]
    if isinstance(value, (dict, list)):
        split = mixed.split(value)
        if split is not None:
            if not split.has_data:
                return UNSET
            data = to_json(split.data, "the tool's result")[1]
            return data if isinstance(data, dict) else {"result": data}
    if value is None or isinstance(value, (str, int, float, dict)):
        return to_json(value, "the tool's result")[1]
    if isinstance(value, list) and not _is_block_list(value):
        data = to_json(value, "the tool's result")[1]
        return data if _bare_lists(output_schema) else {"result": data}
    return UNSET


def _bare_lists(output_schema: Mapping[str, Any] | None) -> bool:
    """Whether a list of data is its own structured content: under an output schema of
    ``"type": "array"`` (from 2026-07-28 structured content may be any JSON value); else it is
    ``{"result": [...]}``, as an array's."""
    return output_schema is not None and output_schema.get("type") == "array"


def json_spelled(value: object) -> bool:
    """Whether :func:`tool_result` (no output schema) writes ``value``'s text as JSON — a number, a
    boolean, a dict, a list of data, a numpy scalar; None, which has no text and reads back as
    null — rather than as text of its own (a string,
    ``str()`` of an object). Such a text reads back as the value (``json.loads``: a finished job's
    result, polled, is the value the tool returned, not its text). Cheap: no encoding."""
    kind = type(value)
    if kind in SCALAR_TYPES or value is None:  # None: no text at all, read back as null (job_value)
        return True
    if kind is str:
        return False
    value = plain(value)
    if convert.recognised(value):
        found, value = convert.scalar(value)
        if not found:
            return False  # an array, a table, a figure: its data is structured content, if any
    if isinstance(value, (bool, int, float, dict)):
        return True
    # a list mixing pictures, content or bytes with data is not: its text blocks are the pieces' (a caption)
    return isinstance(value, list) and not _is_block_list(value) and not mixed.holds_piece(value)


def _renamed(value: Any, renamed: dict[str, str]) -> Any:
    """``value`` with each old URI of ``renamed`` in its strings given the new one (a link's own
    ``uri`` and ``description`` are left as they are)."""
    if isinstance(value, str):
        for old, new in renamed.items():
            value = value.replace(old, new)
        return value
    if isinstance(value, dict):
        return {k: v if k in ("uri", "description") else _renamed(v, renamed) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed(v, renamed) for v in value]
    return value


def tool_result(
    value: object,
    *,
    output_schema: Mapping[str, Any] | None = None,
    version: str = V2025_11_25,
    sink: ResultSink | None = None,
    data_only: bool = False,
) -> Wire:
    """Shape a tool's return value as an MCP ``CallToolResult`` (see the module table).

    Args:
        value: what the tool function returned.
        output_schema: the tool's declared output schema, if any; then ``structuredContent`` is
            :func:`structured_value` (already validated by the caller), as far as ``version`` allows.
        version: the protocol version in force for the request.
        sink: the options (``max_inline_bytes``, ``figure_dpi``), the store and the owner for
            large results; None inlines everything. A tool with an output schema is never
            offloaded (its structured content is promised).
        data_only: ``None`` (no output schema) becomes ``structuredContent {"result": null}``
            (REST asks for it: its answers are data; a list's is ``{"result": [...]}`` on every route,
            as an array's).

    Returns:
        ``{"content": [block, ...], "isError": bool, "structuredContent"?: JSON, "_meta"?: {...}}``
        (MCP 2025-11-25, Server § Tools § Tool result; ``resultType`` for 2026 is the caller's).

    Raises:
        TypeError: a dict or list holding something JSON cannot, or a value with no MCP form, or a
            ``meta`` (the result's, a block's) holding one; the message names the offending part.
        NestedTooDeep: data (a dict, a list, structured content) nested more than
            ``nesting.MAX_JSON_DEPTH`` (128) levels deep; a ValueError saying the limit.
        ValueError: a malformed content dict in a ``ToolResult`` or block list.
        OSError: an ``Image``/``Audio`` file that cannot be read.
    """
    if type(value) in SCALAR_TYPES and output_schema is None:  # the commonest answer: one text block
        return {"content": [{"type": "text", "text": scalar_text(value)}], "isError": False}  # type: ignore[arg-type]
    if isinstance(value, ToolResult):
        wire = value.to_wire()
        renamed: dict[str, str] = {}
        wire["content"], notes = parts.kept_in_place(wire["content"], sink, pictures=False, renamed=renamed)
        if renamed:  # a stub naming a kept resource names the URI that resources/read answers (the notes,
            wire = _renamed(wire, renamed)  # which name it already, are not read: an old URI may begin the new)
        wire["content"] += notes
    else:
        if output_schema is None:
            content, structured = _tool_parts(value, sink, data_only)
        else:  # never offloaded (its structured content is promised), a list as the schema has it
            content, structured = _tool_parts(value, _inline(sink), False, _bare_lists(output_schema))
            if structured is UNSET:
                structured = structured_value(value, output_schema)
        wire = {"content": content, "isError": False}
        if structured is not UNSET:
            wire["structuredContent"] = structured
    if "structuredContent" in wire and not _structured_allowed(wire["structuredContent"], version):
        del wire["structuredContent"]
    check_meta_values(wire, "ToolResult meta")
    return wire
