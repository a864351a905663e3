"""A Sim2L run's outputs as an MCP tool result (MCP 2025-11-25, Server § Tools § Tool result).

=====================================  ==========================================================
output                                 content
=====================================  ==========================================================
Number, Integer, Boolean, Text, Tag,   in ``structuredContent.outputs`` and the JSON text block
Choice, List, Dict, Element            (a Number's units in ``structuredContent.units``)
Array                                  the same, as nested lists (the server's numpy conversion),
                                       plus a text summary (shape, dtype, range)
Image                                  an ``image`` block (PNG; the saved file's own bytes when it
                                       is PNG, JPEG or GIF) and a ``resource_link`` to the file
File (or any output saved as a file)   a ``resource_link`` to the file (readable with
                                       ``resources/read``)
=====================================  ==========================================================

``structuredContent`` is ``{"run": id, "cached": bool, "outputs": {...}, "units": {...},
"files": {name: uri}, "missing": [...]}``; its JSON is the first text block, so a client without
structured content reads the same data. Values whose JSON is larger than the server's
``max_inline_bytes`` are kept whole in the run's ``outputs.json``, linked from the result.
"""

from __future__ import annotations

import contextlib
import mimetypes
import os
from typing import Any
from urllib.parse import quote

from ...protocol.content import ImageContent, ResourceLink, TextContent
from ...protocol.jsonenc import dumps
from ...protocol.result_types import ToolResult
from ...server.results import convert
from ...server.wire.left_files import LeftFileRefused, read_left_file
from .execute import Output
from .notebook import Sim2LSpec
from .saved import VALUE_FILE_LIMIT

__all__ = ["file_uri", "shape_result"]

PICTURE_TYPES = {"image/png", "image/jpeg", "image/gif", "image/webp"}
OUTPUTS_FILE = "outputs.json"
"""Where a run's output values are kept whole when they are too large to inline."""


def file_uri(tool: str, run: str, path: str) -> str:
    """The ``sim2l://`` URI of a file a run saved."""
    return f"sim2l://{tool}/{run}/{quote(path, safe='/')}"


def _image_block(path: str, value: Any) -> dict[str, Any] | None:
    """An Image output's file as an image block: only a regular file of at most ``VALUE_FILE_LIMIT`` bytes (past it,
    or a link, the resource link alone carries it); else its value's block."""
    mime = mimetypes.guess_type(path)[0]
    if mime in PICTURE_TYPES and os.path.isfile(path):
        try:
            return ImageContent(read_left_file(path, VALUE_FILE_LIMIT), mime).to_wire()
        except (OSError, LeftFileRefused):
            return None
    return convert.images.to_block(value) if value is not None else None


def _kept_whole(
    values: dict[str, Any], directory: str, tool: str, run: str, limit: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Write every value to the run's ``outputs.json``; the values with the largest replaced by notes
    naming it until the rest fits in ``limit`` bytes of JSON, and the link to the file."""
    path = os.path.join(directory, OUTPUTS_FILE)
    text = dumps(values)
    if not os.path.isfile(path):
        temporary = f"{path}.{os.getpid()}.tmp"
        with open(temporary, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    uri = file_uri(tool, run, OUTPUTS_FILE)
    brief = dict(values)
    for name in sorted(values, key=lambda n: len(dumps(values[n])), reverse=True):
        size = len(dumps(values[name]))
        note = f"{size} bytes of JSON, kept in {OUTPUTS_FILE} (linked)"
        if len(dumps(brief)) <= limit or size <= len(note):
            break  # what is left fits, or is smaller than a note about it
        brief[name] = note
    link = ResourceLink(
        uri,
        name=OUTPUTS_FILE,
        description="every output value of the run, as JSON",
        mime_type="application/json",
        size=len(text.encode("utf-8")),
    ).to_wire()
    return brief, link


def shape_result(
    spec: Sim2LSpec,
    tool: str,
    run: str,
    directory: str,
    outputs: list[Output],
    missing: list[str],
    *,
    cached: bool,
    max_inline_bytes: int | None = None,
    meta: dict[str, Any] | None = None,
) -> ToolResult:
    """The result of a run whose outputs were read from ``directory`` (see the module table).

    When the values' JSON is longer than ``max_inline_bytes``, all of them are kept in the run's
    ``outputs.json`` (a ``resource_link`` in the result) and the largest are replaced by a note
    naming that resource until the rest fits (a value shorter than its note stays). ``meta``: the
    result's ``_meta``.
    """
    values: dict[str, Any] = {}
    units: dict[str, str] = {}
    files: dict[str, str] = {}
    blocks: list[Any] = []
    summaries: list[str] = []
    for output in outputs:
        item = spec.outputs[output.name]
        if item.units:
            units[output.name] = item.units
        if output.file is not None:
            path = os.path.join(directory, output.file)
            uri = file_uri(tool, run, output.file)
            files[output.name] = uri
            if item.type == "Image":
                block = _image_block(path, output.value)
                if block is not None:
                    blocks.append(block)
            size = os.path.getsize(path) if os.path.isfile(path) else None
            blocks.append(
                ResourceLink(
                    uri,
                    name=os.path.basename(output.file),
                    description=item.description or None,
                    mime_type=mimetypes.guess_type(output.file)[0],
                    size=size,
                ).to_wire()
            )
            if item.type in ("File", "Image"):
                continue
        if item.type == "Image":
            block = convert.images.to_block(output.value)
            if block is not None:
                blocks.append(block)
            continue
        if item.type == "Array" and isinstance(output.value, list):
            import numpy  # simtool's own dependency: an Array output reads as a numpy array

            with contextlib.suppress(ValueError):  # ragged nesting: kept as lists
                output.value = numpy.asarray(output.value)
        if convert.library(output.value) == "numpy" and getattr(output.value, "ndim", 0) > 0:
            converted = convert.convert(output.value)
            if converted is not None and converted.summary:
                summaries.append(f"{output.name}: {converted.summary}")
        values[output.name] = convert.jsonable(output.value)
    if max_inline_bytes is not None and len(dumps(values)) > max_inline_bytes:
        values, link = _kept_whole(values, directory, tool, run, max_inline_bytes)
        blocks.insert(0, link)
    structured: dict[str, Any] = {"run": run, "cached": cached, "outputs": values}
    if units:
        structured["units"] = units
    if files:
        structured["files"] = files
    if missing:
        structured["missing"] = missing
    text = [TextContent(dumps(structured)).to_wire()]
    text.extend(TextContent(s).to_wire() for s in summaries)
    return ToolResult(content=[*text, *blocks], structured_content=structured, meta=meta)
