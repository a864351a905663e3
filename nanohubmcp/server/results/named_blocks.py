"""A tool result's content blocks named, not carried: the plain value a REST answer and a job's value give
for a result with no structured content, and for a list mixing blocks with data.

A picture stays MCP content: its place in the value says ``"<image: content[i]>"`` (the name
:mod:`.convert.mixed` leaves in a dict's place), any other block that is not text (audio, bytes as an
embedded resource, a file, a resource link) ``"<content[i]>"``, i the block's index in the result — also
when the picture or file was kept as a resource for being over ``max_inline_bytes`` (its ``resource_link`` in
its place, of an ``image/*`` type for a picture; the notes saying so, after all the blocks, are no part of the
value), so a job's value reads the same whoever started it. A link the tool returned itself is
``"<content[i]>"`` whatever its type: only a link the server made for a picture it kept names a picture. A list the
tool returned mixing blocks with data (``[fig, "cap", {"n": 1}]``) is answered whole, each block named
in its place: REST shapes it so at once; a job started over MCP keeps where each item sat
(:func:`.convert.mixed.places_of`) and its poll rebuilds the list from its stored result
(:func:`in_place`). Where the client gets the blocks in another answer than the result's own (a job's,
polled with ``get_job_result``: its status text first, then the result's blocks that are not text),
:func:`renumbered` makes each name say the block's index in that answer. Pure: no I/O; imports nothing that
shapes results (REST's module loads it at start).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from ...schema.paths import pointed

__all__ = ["in_place", "kept_as", "named", "placeholders", "renumbered"]

_NAME = r"<(image: )?content\[(\d{1,9})\]>"
"""A block's name as this module and :mod:`.convert.mixed` write it (compiled by ``re`` at its first use)."""
_LEAVES = frozenset({int, float, bool, type(None)})


def kept_as(uri: str) -> str:
    """The words of the note of a result part kept as the resource ``uri`` that name it (the note that
    goes with a picture's link is told from a caption by them: ``uri`` is the store's, unguessable)."""
    return f"so it is kept as the resource {uri} "


def placeholders(content: list[Any]) -> Any:
    """The blocks of a result without structured content as a plain value: a text block as its text,
    an image as ``"<image: content[i]>"``, any other block as ``"<content[i]>"``. One block alone
    stands for itself (a figure: ``"<image: content[0]>"``); several are a list in their order; no
    block is ``[]``. The note of a picture or file kept as a resource is left out: its link is named
    ``"<image: content[i]>"`` or ``"<content[i]>"``, as the block itself would be (a job's value reads the
    same whoever started it, and as a direct REST call, which keeps nothing, names the blocks)."""
    links, notes = _kept_blocks(content)
    names = [name for i, name in enumerate(_names(content, links)) if i not in notes]
    return names[0] if len(names) == 1 else names


def named(content: list[Any]) -> list[Any]:
    """Each block of ``content`` named as :func:`placeholders` names it, always as a list, in order."""
    return _names(content, _kept_blocks(content)[0])


def _names(content: list[Any], kept_links: set[int]) -> list[Any]:
    return [_named(i, block, i in kept_links) for i, block in enumerate(content)]


def _named(index: int, block: Any, kept: bool) -> Any:
    """``kept``: ``block`` is the link of a block the server kept (a picture's names it as the picture);
    a link the tool gave, to a picture or not, is ``"<content[i]>"``."""
    if not isinstance(block, dict):
        return block
    kind = block.get("type")
    if kind == "text":
        return block.get("text", "")
    picture = kind == "image" or (kept and str(block.get("mimeType") or "").startswith("image/"))
    return f"<image: content[{index}]>" if picture else f"<content[{index}]>"


def _kept_blocks(content: list[Any]) -> tuple[set[int], set[int]]:
    """``(links, notes)``: the indexes of the ``resource_link`` blocks of pictures and files of ``content``
    kept as resources, and of the text blocks after them saying so (:func:`.convert.parts.blocks_kept`; the
    note of kept data comes before its link, and stays: it carries the data's summary or preview)."""
    links: set[int] = set()
    notes: set[int] = set()
    words: dict[str, int] = {}
    for i, block in enumerate(content):
        if not isinstance(block, dict):
            continue
        if block.get("type") == "resource_link":
            words[kept_as(str(block.get("uri")))] = i
        elif block.get("type") == "text":
            text = str(block.get("text", ""))
            said = [link for w, link in words.items() if w in text]
            if said:
                notes.add(i)
                links.update(said)
    return links, notes


def in_place(result: dict[str, Any], places: list[Any]) -> list[Any] | None:
    """The list a tool returned, rebuilt from its ``CallToolResult`` and ``places`` (what
    :func:`.convert.mixed.places_of` said of it): each
    block named as :func:`named` names it, each data item read at its JSON pointer in the structured
    content — or, for a result made for a version without structured content (before 2025-06-18), in
    the JSON text block that ends the content. ``[0, 1, ""]`` over an image, the text ``"cap"`` and
    ``{"n": 1}`` -> ``["<image: content[0]>", "cap", {"n": 1}]``.

    Returns None when the result does not hold them so (its data kept as a resource: it ends with a
    link): the caller answers as for any result.
    """
    content = result.get("content") or []
    if "structuredContent" in result:
        source = result["structuredContent"]
    elif content and isinstance(content[-1], dict) and content[-1].get("type") == "text":
        try:
            source = json.loads(content[-1].get("text", ""))
        except ValueError:
            return None
    else:
        return None
    names = named(content)
    whole: list[Any] = []
    for place in places:
        if isinstance(place, int) and not isinstance(place, bool):
            if not 0 <= place < len(content) - 1:  # a block, never the data's text that ends the content
                return None
            whole.append(names[place])
        else:
            found, item = pointed(source, place) if isinstance(place, str) else (False, None)
            if not found:
                return None
            whole.append(item)
    return whole


def renumbered(value: Any, at: Mapping[int, int]) -> Any:
    """``value`` (a result's plain value: :func:`placeholders`, :func:`in_place`, its structured content) with
    each block's name, ``"<image: content[i]>"`` or ``"<content[i]>"`` wherever it stands (alone, in a list, in
    a dict's place), saying ``at[i]`` instead of ``i``: the block's index in the answer that carries it. A name
    whose ``i`` is not in ``at`` (no block the answer carries) and every other value are left as they are."""
    if isinstance(value, str):
        if value.startswith("<") and value.endswith("]>"):
            found = re.fullmatch(_NAME, value)
            if found is not None and int(found[2]) in at:
                return f"<{found[1] or ''}content[{at[int(found[2])]}]>"
        return value
    if isinstance(value, list):
        if set(map(type, value)) <= _LEAVES:  # numbers only (an array's data): nothing named, one C pass
            return value
        return [renumbered(item, at) for item in value]
    if isinstance(value, dict):
        return {key: renumbered(item, at) for key, item in value.items()}
    return value
