"""The IPython display protocol: what a notebook would display, as MCP content.

An object takes part when it has ``_repr_mimebundle_`` or any of the ``_repr_*_`` methods below
(``IPython.display.Image``, ``HTML``, ``Markdown``, ``Math``, ``JSON``, ``SVG`` and most rich objects
of scientific libraries do). Nothing is imported: the methods are called directly. The MIME types
offered are taken in this order and the first one found decides (``text/plain`` joins HTML):

===========================  =====================================================================
MIME type                    MCP content
===========================  =====================================================================
``image/png``, ``image/jpeg``, an ``image`` block of that type
``image/gif``, ``image/webp``
``image/svg+xml``            an embedded ``resource`` (text, ``mimeType: image/svg+xml``)
``application/json``         ``structuredContent`` (an object as it is, else ``{"result": ...}``)
                             and its JSON text
``text/markdown``            a text block (the Markdown)
``text/latex``               a text block (the LaTeX, e.g. ``$\\displaystyle x^2$``)
                             (either passed over for ``text/plain`` when it has no digit and the
                             ``text/plain`` form offered has some: it lost the values)
``text/html``                the ``text/plain`` form as a text block when offered, then an embedded
                             ``resource`` (``mimeType: text/html``)
``text/plain``               a text block
===========================  =====================================================================
"""

from __future__ import annotations

import base64
from typing import Any, Final

from ....protocol.content import EmbeddedResource, ImageContent

DISPLAY_URI: Final = "nanohubmcp://result"

METHODS: Final = (
    ("image/png", "_repr_png_"),
    ("image/jpeg", "_repr_jpeg_"),
    ("image/svg+xml", "_repr_svg_"),
    ("application/json", "_repr_json_"),
    ("text/markdown", "_repr_markdown_"),
    ("text/latex", "_repr_latex_"),
    ("text/html", "_repr_html_"),
)
IMAGES: Final = ("image/png", "image/jpeg", "image/gif", "image/webp")


def offers(value: object) -> bool:
    """True when ``value`` takes part in the display protocol (a class, not an instance, does not)."""
    if isinstance(value, type) or hasattr(value, "_ipython_canary_method_should_not_exist_"):
        return False  # IPython's own guard against objects that answer every attribute
    kind = type(value)
    return hasattr(kind, "_repr_mimebundle_") or any(hasattr(kind, name) for _, name in METHODS)


def bundle(value: object) -> dict[str, Any]:
    """The MIME bundle ``value`` offers: ``_repr_mimebundle_`` first, then each ``_repr_*_`` method."""
    data: dict[str, Any] = {}
    method = getattr(value, "_repr_mimebundle_", None)
    if callable(method):
        offered = method(include=None, exclude=None)
        if isinstance(offered, tuple):
            offered = offered[0]
        if isinstance(offered, dict):
            data.update(offered)
    for mime, name in METHODS:
        method = getattr(value, name, None)
        if mime in data or not callable(method):
            continue
        offered = method()
        if isinstance(offered, tuple):  # (data, metadata)
            offered = offered[0]
        if offered is not None:
            data[mime] = offered
    return data


def _image(data: str | bytes, mime: str) -> dict[str, Any]:
    if isinstance(data, str):
        data = "".join(data.split())  # notebook bundles carry base64 text, maybe wrapped
        base64.b64decode(data, validate=True)
    return ImageContent(data, mime).to_wire()


def _text(data: object) -> str:
    if isinstance(data, (list, tuple)):  # notebook JSON splits text into lines
        return "".join(map(str, data))
    return data.decode("utf-8") if isinstance(data, (bytes, bytearray)) else str(data)


def _drops_numbers(text: str, plain: object) -> bool:
    """Whether a Markdown or LaTeX form ``text`` has no digit where the ``text/plain`` form offered beside it
    has some: the rich form lost the values (pint's LaTeX of an array is an empty matrix), so the plain one is
    sent instead."""
    return plain is not None and not any(c.isdigit() for c in text) and any(c.isdigit() for c in _text(plain))


def to_parts(value: object) -> tuple[list[dict[str, Any]], Any] | None:
    """``(content blocks, JSON data or None)`` for the first MIME type offered; None if none is."""
    data = bundle(value)
    for mime in IMAGES:
        if data.get(mime) is not None:
            return [_image(data[mime], mime)], None
    if data.get("image/svg+xml") is not None:
        svg = _text(data["image/svg+xml"])
        return [EmbeddedResource(DISPLAY_URI, text=svg, mime_type="image/svg+xml").to_wire()], None
    if "application/json" in data:
        return [], data["application/json"]
    for mime in ("text/markdown", "text/latex"):
        if data.get(mime) is not None and not _drops_numbers(_text(data[mime]), data.get("text/plain")):
            return [{"type": "text", "text": _text(data[mime])}], None
    if data.get("text/html") is not None:
        blocks = []
        if data.get("text/plain") is not None:
            blocks.append({"type": "text", "text": _text(data["text/plain"])})
        html = EmbeddedResource(DISPLAY_URI, text=_text(data["text/html"]), mime_type="text/html")
        return [*blocks, html.to_wire()], None
    if data.get("text/plain") is not None:
        return [{"type": "text", "text": _text(data["text/plain"])}], None
    return None
