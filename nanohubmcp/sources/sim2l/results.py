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
structured content reads the same data.
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
from .execute import Output
from .notebook import Sim2LSpec

__all__ = ["file_uri", "shape_result"]

PICTURE_TYPES = {"image/png", "image/jpeg", "image/gif", "image/webp"}


def file_uri(tool: str, run: str, path: str) -> str:
    """The ``sim2l://`` URI of a file a run saved."""
    return f"sim2l://{tool}/{run}/{quote(path, safe='/')}"


def _image_block(path: str, value: Any) -> dict[str, Any] | None:
    mime = mimetypes.guess_type(path)[0]
    if mime in PICTURE_TYPES and os.path.isfile(path):
        with open(path, "rb") as stream:
            return ImageContent(stream.read(), mime).to_wire()
    return convert.images.to_block(value) if value is not None else None


def shape_result(
    spec: Sim2LSpec, tool: str, run: str, directory: str, outputs: list[Output], missing: list[str], *, cached: bool
) -> ToolResult:
    """The result of a run whose outputs were read from ``directory`` (see the module table)."""
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
    structured: dict[str, Any] = {"run": run, "cached": cached, "outputs": values}
    if units:
        structured["units"] = units
    if files:
        structured["files"] = files
    if missing:
        structured["missing"] = missing
    text = [TextContent(dumps(structured)).to_wire()]
    text.extend(TextContent(s).to_wire() for s in summaries)
    return ToolResult(content=[*text, *blocks], structured_content=structured)
