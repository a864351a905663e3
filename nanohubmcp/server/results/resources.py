"""What a resource function returned, turned into the ``ReadResourceResult`` the wire carries.

Pure functions, like :mod:`.shape` (which re-exports them): no I/O, no server state. What each
kind of returned value becomes is documented at :func:`resource_contents`.
Source: MCP 2025-11-25, Server § Resources § Reading resources.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...protocol.content import (
    Audio,
    AudioContent,
    EmbeddedResource,
    Image,
    ImageContent,
    ResourceContent,
    TextContent,
    is_content,
    scalar_text,
)
from ...protocol.result_types import ResourceResult
from . import convert
from .json_values import refused_by_name, to_json
from .meta_values import check_meta_values
from .plain import has_str, is_bytes, plain

__all__ = ["resource_contents", "resource_result"]

Wire = dict[str, Any]


def _resource_item(item: object) -> tuple[ResourceContent, str | None]:
    """Return one resource item and the MIME type to fall back on after the registered one."""
    if isinstance(item, ResourceContent):
        return item, None
    form = None
    if convert.recognised(item):
        with refused_by_name(item, "the resource's value"):
            form = convert.resource_form(item)
    if form is not None:
        data, mime = form
        return (ResourceContent(text=data) if isinstance(data, str) else ResourceContent(blob=data)), mime
    if isinstance(item, str):
        return ResourceContent(text=item), "text/plain"
    if isinstance(item, (bool, int, float)):
        return ResourceContent(text=scalar_text(item)), "text/plain"
    if is_bytes(item):
        return ResourceContent(blob=bytes(item)), None
    if isinstance(item, (Image, Audio)):
        item = item.to_content()
    if isinstance(item, (ImageContent, AudioContent)):
        return ResourceContent(blob=item.data, mime_type=item.mime_type, meta=item.meta), None
    if isinstance(item, TextContent):
        return ResourceContent(text=item.text, meta=item.meta), "text/plain"
    if isinstance(item, EmbeddedResource):
        return item.resource, None
    if isinstance(item, (dict, list)):
        return ResourceContent(text=to_json(item, "the resource's value")[0]), "application/json"
    if has_str(item) and not is_content(item):
        return ResourceContent(text=str(item)), "text/plain"
    raise TypeError(
        f"a resource returned a value of type {type(item).__name__}, which has no resource form; return a str, "
        "bytes, dict, list, Image, ResourceContent or ResourceResult"
    )


def _is_resource_object(item: object) -> bool:
    return isinstance(
        item, (ResourceContent, Image, Audio, ImageContent, AudioContent, TextContent, EmbeddedResource)
    ) or is_bytes(item)


def resource_contents(
    value: object, *, uri: str, mime_type: str | None = None, meta: Mapping[str, Any] | None = None
) -> list[Wire]:
    """Shape a resource function's return value as the ``contents`` of a ``ReadResourceResult``.

    Args:
        value: a ``ResourceResult`` (its items), ``ResourceContent``, str (text), number, bytes (blob,
            base64), dict or data list (JSON text), ``Image``/``Audio``/``ImageContent``/``AudioContent``
            (blob), ``TextContent``, ``EmbeddedResource`` (its resource), or a list holding content
            objects/bytes and strings (one item each); ``None`` gives ``[]``.
        uri: the URI that was read; fills items without one.
        mime_type: the resource's registered MIME type; fills items without their own.
        meta: the resource's registered ``_meta``; fills items without their own.

    Returns:
        ``[{"uri", "mimeType"?, "text"|"blob", "_meta"?}, ...]`` (MCP 2025-11-25, Server § Resources §
        Reading resources). Without any MIME type, text gets ``text/plain``, JSON ``application/json``
        and bytes their sniffed type or ``application/octet-stream``.

    Raises:
        TypeError: a value with no resource form, or a dict/list JSON cannot hold.
    """
    if isinstance(value, ResourceResult):
        return list(value.to_wire(uri=uri, mime_type=mime_type, meta=meta)["contents"])
    value = plain(value)
    if value is None:
        return []
    if (
        isinstance(value, list)
        and any(map(_is_resource_object, value))
        and all(_is_resource_object(i) or isinstance(i, str) for i in value)
    ):
        items = [_resource_item(i) for i in value]
    else:
        items = [_resource_item(value)]
    wires = []
    for item, fallback in items:
        wire = item.to_wire(uri=uri, mime_type=mime_type, meta=meta)
        if fallback and "mimeType" not in wire:
            wire = {"uri": wire["uri"], "mimeType": fallback, **wire}
        wires.append(wire)
    return wires


def resource_result(
    value: object, *, uri: str, mime_type: str | None = None, meta: Mapping[str, Any] | None = None
) -> Wire:
    """Return the whole ``ReadResourceResult``: ``{"contents": [...], "_meta"?}``.

    Like :func:`resource_contents`; a ``ResourceResult``'s own ``meta`` becomes the result's ``_meta``.

    Raises:
        TypeError: as :func:`resource_contents` says; or a ``meta`` (the result's, an item's) holding a
            value JSON cannot hold (:func:`.meta_values.check_meta_values`).
    """
    wire: Wire = {"contents": resource_contents(value, uri=uri, mime_type=mime_type, meta=meta)}
    if isinstance(value, ResourceResult) and value.meta:
        wire["_meta"] = value.meta
    check_meta_values(wire, "ResourceResult meta")
    return wire
