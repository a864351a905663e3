"""A converted value as content blocks and structured content, with large data kept aside.

Inline (the data's JSON fits ``max_inline_bytes``): ``content`` is the summary text, any other
blocks, then the JSON text of ``structuredContent`` (which MCP 2025-06-18+, Server § Tools §
Structured content, asks tools to include for clients that do not read structured content);
``structuredContent`` is the data (an object as it is, anything else as ``{"result": data}``).

Too large: ``content`` is the summary, a sentence saying where the rest is, and a
``resource_link`` to the kept data; there is no ``structuredContent``. Nothing is truncated
silently: the link's resource holds all of it.
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Any

from ....protocol import escaped_text, jsonenc
from ....protocol.encoded import Encoded
from ....protocol.wire import UNSET
from ..kept_parts import parts_note
from ..named_blocks import kept_as
from .arrays import LongerThan

if TYPE_CHECKING:
    from ..sink import ResultSink
    from . import Converted

Wire = dict[str, Any]
WRAPPER = '{"result":'
PREVIEW_CHARS = 400
BYTES_URI = "nanohubmcp://result"
"""URI of the embedded resource that carries bytes a tool returned (neither image nor audio): a label of the
block, which no ``resources/read`` answers."""


def _text(text: str) -> Wire:
    return {"type": "text", "text": text}


def too_big(sink: ResultSink | None, size: int) -> bool:
    """Whether ``size`` bytes must go to the store (never without a sink)."""
    return sink is not None and sink.too_big(size)


def held(sink: ResultSink | None, size: int, *, at_least: bool = False) -> None:
    """Refuse ``size`` bytes of JSON that go in the answer (not to the store) when over the server's
    ``max_result_bytes`` (:meth:`ResultSink.hold`; ``at_least``: a bound found before encoding)."""
    if sink is not None and not too_big(sink, size):
        sink.hold(size, at_least=at_least)


def link_note(summary: str | None, size: int, sink: ResultSink, link: Wire, *, base64_size: int | None = None) -> Wire:
    """The text block that goes with a ``resource_link``: what the data is and where all of it is.
    ``size``: the data's bytes; ``base64_size``: the characters of its base64, when that is what was found
    over ``max_inline_bytes`` (a picture, a sound, a file's blob), said beside ``size``."""
    measured = f"{size} bytes" if base64_size is None else f"{size} bytes, {base64_size} as base64"
    note = (
        f"The full result ({measured}) is larger than max_inline_bytes "
        f"({sink.options.max_inline_bytes}), {kept_as(link['uri'])}"
        f"({link.get('mimeType')}); read it with resources/read to get all of it"
    )
    kept = link.get("size")
    parts = parts_note(link["uri"], kept if isinstance(kept, int) else size, link.get("mimeType"),
                       sink.options.max_event_bytes)
    note += f", whole or, where an answer goes as one server-sent event (legacy SSE), {parts}." if parts else "."
    return _text(f"{summary}\n\n{note}" if summary else note)


def offload_json(text: str, sink: ResultSink) -> list[Wire]:
    """Blocks for a plain dict/list result whose JSON ``text`` is too large: a preview and the link."""
    link = sink.link(text, "application/json", "result.json", "the tool's full result, as JSON")
    preview = f"Preview (first {PREVIEW_CHARS} characters of the JSON): {text[:PREVIEW_CHARS]}..."
    return [link_note(preview, len(text), sink, link), link]


def offload_text(text: str, sink: ResultSink) -> list[Wire]:
    """Blocks for a text result too large to inline (a runaway log, say): a preview and the link."""
    link, note = _text_link(text, sink, "result.txt", "the tool's full text result")
    return [note, link]


def _text_link(text: str, sink: ResultSink, name: str, description: str) -> tuple[Wire, Wire]:
    """``text`` kept in the store as ``name``: its ``resource_link`` and its note (a preview, its UTF-8 size)."""
    link = sink.link(text, "text/plain", name, description)
    preview = f"Preview (first {PREVIEW_CHARS} characters): {text[:PREVIEW_CHARS]}..."
    return link, link_note(preview, link.get("size", len(text)), sink, link)  # (its UTF-8 size, as kept)


def keeps_file(sink: ResultSink | None, size: int) -> bool:
    """Whether a picture or file of ``size`` bytes (its base64 or its text) goes to the store."""
    return sink is not None and sink.keeps_file(size)


def blocks_kept(blocks: list[Wire], sink: ResultSink | None, *, pictures: bool = True) -> list[Wire]:
    """``blocks`` with each picture, sound and text (an ``image``, ``audio`` or ``text`` block, a caption:
    none with ``pictures=False``; a text not when the sink keeps data inline, a job's) and each embedded
    ``resource`` (a file, bytes) over ``max_inline_bytes`` kept in the store, whatever shape
    the value had (a figure alone, a list of pictures, files and captions, a plot with its data, a job's output
    files): its ``resource_link`` alone takes its place and the notes saying so follow all the blocks, so block
    i is still the picture, the sound or the file, and a ``"<image: content[i]>"`` or ``"<content[i]>"`` names
    it as it names the block itself where nothing is kept (a REST call)."""
    kept, notes = kept_in_place(blocks, sink, pictures=pictures)
    return kept + notes


def kept_in_place(blocks: list[Wire], sink: ResultSink | None, *, pictures: bool = True,
                  renamed: dict[str, str] | None = None) -> tuple[list[Wire], list[Wire]]:
    """``(blocks, notes)``: :func:`blocks_kept` before its notes join the blocks. ``renamed``, if given,
    gets each kept file's old URI -> the URI the store answers."""
    out, notes = [], []
    for block in blocks:
        kept = (_picture_kept(block, sink) or _text_kept(block, sink)) if pictures else None
        if kept is None:
            kept = _file_kept(block, sink, renamed)
        if kept is None:
            out.append(block)
        else:
            out.append(kept[0])
            notes.append(kept[1])
    return out, notes


def _picture_kept(block: Wire, sink: ResultSink | None) -> tuple[Wire, Wire] | None:
    """The link and the note of an image or audio ``block`` kept in the store (named ``image.png``,
    ``audio.wav``), or None (neither, or small)."""
    kind = block.get("type")
    if kind not in ("image", "audio") or not keeps_file(sink, len(block["data"])):
        return None
    assert sink is not None
    data = base64.b64decode(block["data"])
    mime = block["mimeType"]
    link = sink.link(data, mime, f"{kind}.{mime.rpartition('/')[2]}", f"the tool's {kind}")
    return link, link_note(None, len(data), sink, link, base64_size=len(block["data"]))


def _text_kept(block: Wire, sink: ResultSink | None) -> tuple[Wire, Wire] | None:
    """The link and the note of a text ``block`` (a caption beside a picture) over ``max_inline_bytes`` kept
    in the store as ``text.txt``, as a text result alone is, or None (no text, small, or data kept inline)."""
    text = block.get("text") if block.get("type") == "text" else None
    if not isinstance(text, str) or not too_big(sink, len(text)):  # characters: a lower bound of its bytes
        return None
    assert sink is not None
    return _text_link(text, sink, "text.txt", "the tool's text")


def _file_kept(block: Wire, sink: ResultSink | None, renamed: dict[str, str] | None) -> tuple[Wire, Wire] | None:
    """The link and the note of an embedded resource ``block`` kept in the store, or None (no embedded
    resource, or small)."""
    resource = block.get("resource") if block.get("type") == "resource" else None
    payload = None if not isinstance(resource, dict) else resource.get("text", resource.get("blob"))
    if not isinstance(payload, str) or not keeps_file(sink, len(payload)):
        return None
    assert sink is not None
    assert isinstance(resource, dict)
    data: bytes | str = payload if "text" in resource else base64.b64decode(payload)
    uri = str(resource.get("uri", ""))
    name = uri.rstrip("/").rpartition("/")[2] or "resource"
    described = "the tool's bytes" if uri == BYTES_URI else f"the file {uri}"
    link = sink.link(data, str(resource.get("mimeType") or "application/octet-stream"), name, described)
    if renamed is not None and uri:
        renamed[uri] = link["uri"]
    blob = None if "text" in resource else len(payload)
    return link, link_note(f"{name}:", len(data), sink, link, base64_size=blob)


def _kept(conv: Converted, sink: ResultSink, payload: bytes | str, mime: str, name: str) -> list[Wire]:
    """The note and the ``resource_link`` of a converted value's data kept in the store."""
    link = sink.link(payload, mime, name, _described(conv, name))
    return [link_note(conv.summary, len(payload), sink, link), link]


def _described(conv: Converted, name: str) -> str:
    return conv.summary.partition("\n")[0] if conv.summary else name


def _fitting_text(conv: Converted, sink: ResultSink) -> str | None:
    """The data's JSON text (``conv.parts()`` joined) when its result fits ``max_inline_bytes``;
    None, having written at most that much and one part more, when it does not (or its shape says so)."""
    assert conv.parts is not None
    room = (sink.options.max_inline_bytes or 0) - len(WRAPPER) - 1
    if conv.at_least > room:
        return None
    pieces, length = [], 0
    for part in conv.parts():
        pieces.append(part)
        length += len(part)
        if length > room:
            return None
    return "".join(pieces)


def _known_too_big(conv: Converted, sink: ResultSink | None, limit: int | None) -> bool:
    """True when ``conv`` has a file form and says, without making its data, that it is over ``limit``."""
    if conv.full is None or conv.longer_than is None or limit is None or not too_big(sink, limit + 1):
        return False
    return conv.longer_than(limit)


def converted_parts(conv: Converted, sink: ResultSink | None, *, data_only: bool = False) -> tuple[list[Wire], Any]:
    """``(content blocks, structuredContent or UNSET)`` of a converted value (see the module).

    ``data_only``: the answer carries ``structuredContent`` alone (REST): no text block repeats the
    data's JSON (for a large array, a copy as large as the answer itself)."""
    blocks = blocks_kept(conv.blocks, sink)
    if not conv.has_data:
        return blocks, UNSET
    limit = sink.options.max_inline_bytes if sink is not None else None
    if _known_too_big(conv, sink, limit):  # a large table: kept as its file without making all of its records
        assert sink is not None
        assert conv.full is not None
        payload, mime, name = conv.full()
        return [*blocks, *_kept(conv, sink, payload, mime, name)], UNSET
    if conv.at_least:  # an array or table surely too large: refused before it is encoded
        held(sink, conv.at_least, at_least=True)  # ... to send
        if sink is not None and sink.keeps() and conv.full is None:  # ... to keep (a table is kept as CSV)
            sink.hold_kept(conv.at_least, at_least=True)
    if conv.text is not None:  # the data's text, written once: the text block and structuredContent share it
        if conv.parts is not None and conv.full is None and sink is not None and sink.keeps():
            fitting = _fitting_text(conv, sink)
            if fitting is None:  # too large to inline: written to the store a part at a time, never whole
                link = sink.link_parts(conv.parts, "application/json", "result.json", _described(conv, "result.json"))
                return [*blocks, link_note(conv.summary, link["size"], sink, link), link], UNSET
            data_text = fitting
        else:  # written only while it fits the answer, or the store when it may be kept
            within = sink.most_bytes() if sink is not None else None
            try:
                data_text = conv.text(None if within is None else within - len(WRAPPER) - 1)
            except LongerThan as stopped:
                assert sink is not None
                sink.refuse(stopped.chars + len(WRAPPER) + 1)
                raise  # (not reached: it is over the limit)
        size = len(data_text) + len(WRAPPER) + 1
        held(sink, size)
        if too_big(sink, size) and conv.full is None:  # kept as the data's text itself: no copy of it
            assert sink is not None
            return [*blocks, *_kept(conv, sink, data_text, "application/json", "result.json")], UNSET
        structured: Any = {"result": Encoded(data_text)}
        if data_only and not too_big(sink, size):
            return [*_head(conv), *blocks], structured
        text = escaped_text.wrapped(WRAPPER, data_text, "}")  # (with its escaped form, made once)
        wrapped = True
    else:
        data = conv.data() if conv.lazy else conv.data
        wrapped = not isinstance(data, dict)
        structured = {"result": data} if wrapped else data
        text = jsonenc.dumps_within_depth(structured, "the tool's result", around=int(wrapped))
        held(sink, len(text))
    if too_big(sink, len(text)):
        assert sink is not None
        if conv.full is not None:
            payload, mime, name = conv.full()
        else:
            payload = text[len(WRAPPER) : -1] if wrapped else text
            mime, name = "application/json", "result.json"
        return [*blocks, *_kept(conv, sink, payload, mime, name)], UNSET
    return [*_head(conv), *blocks] if data_only else [*_head(conv), *blocks, _text(text)], structured


def _head(conv: Converted) -> list[Wire]:
    return [_text(conv.summary)] if conv.summary else []
