"""A Rappture run file's ``<output>`` section as MCP content.

Every element under ``<output>`` is read, declared in tool.xml or not (a tool with no declared
outputs still returns what its run file holds). Each one is a key of ``structuredContent
["outputs"]``, named by its id (else its tag, Rappture's ``tag``/``tagN``), and a line of the text
summary:

================================  ===================================================================
output                            structured value / content
================================  ===================================================================
``curve``                         ``{"type": "curve", "x": [...], "y": [...], "units": {"x", "y"},
                                  "labels": {"x", "y"}}`` and a PNG plot (curves sharing an
                                  ``about.group`` share a plot)
``histogram``                     the same with ``"type": "histogram"`` (x may be labels; ``width``
                                  when given as x-height-width triples) and a bar chart
``table``                         ``{"type": "table", "columns": [{"id", "label", "units"}], "rows"}``
                                  and, with a numeric column, a PNG of its rows as levels
``number``                        ``{"type": "number", "value", "units", "text"}``
``integer``/``boolean``           ``{"type": ..., "value"}``
``string``/``choice``/``periodicelement``/``multichoice``  ``{"type": ..., "value"}``
``log``                           ``{"type": "log", "label", "text"}`` and a text block with the log
``image``                         an image block (the element's base64 data, maybe compressed)
``field``/``mesh`` and the rest   an embedded resource holding the element's XML
================================  ===================================================================

Plots need matplotlib (``pip install 'nanohub-mcp[science]'``); without it the data still comes
as structured content. An output whose data is larger than ``inline_limit`` bytes of JSON goes into
an embedded JSON resource instead of ``structuredContent`` (where it is a short stub naming that
resource); the server keeps embedded resources over ``max_inline_bytes`` as resources of its own and
sends a ``resource_link``. The run's ``status``, ``time``, ``walltime`` and ``cputime`` go under
``structuredContent["run"]``.
"""

from __future__ import annotations

import base64
import xml.etree.ElementTree as ET
import zlib
from dataclasses import dataclass, field
from typing import Any

from ...errors import ToolError
from ...protocol import jsonenc
from ...protocol.content import EmbeddedResource, ImageContent, TextContent, sniff_mime_type
from ...protocol.result_types import ToolResult
from . import plots
from .inputs import text_of
from .schema import BOOLEAN_WORDS
from .units import split_number

__all__ = ["RUN_KEYS", "read_outputs", "tool_result"]

RUN_KEYS = ("status", "time", "walltime", "cputime", "user", "session")
"""``<output>`` children that describe the run rather than hold a result."""

_SCALARS = ("integer", "boolean", "string", "choice", "periodicelement", "multichoice")


@dataclass
class Outputs:
    """What a run file holds, ready to become a result."""

    data: dict[str, Any] = field(default_factory=dict)
    summary: list[str] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)
    images: list[tuple[bytes, str]] = field(default_factory=list)
    resources: list[EmbeddedResource] = field(default_factory=list)
    run: dict[str, str] = field(default_factory=dict)
    plotted: list[dict[str, Any]] = field(default_factory=list)


def _name(element: ET.Element, parent: ET.Element) -> str:
    ident = element.get("id")
    if ident:
        return ident
    same = [c for c in parent if c.tag == element.tag]
    index = same.index(element)
    return element.tag if index == 0 else f"{element.tag}{index}"


def _word(token: str) -> float | str:
    try:
        return float(token)
    except ValueError:
        return token


def _axis(element: ET.Element, axis: str) -> dict[str, str]:
    return {key: text_of(element, f"{axis}/{key}") for key in ("label", "units", "scale")}


def _curve(element: ET.Element, kind: str) -> dict[str, Any]:
    x_axis, y_axis = _axis(element, "xaxis"), _axis(element, "yaxis")
    xs: list[Any] = []
    ys: list[Any] = []
    widths: list[Any] = []
    for component in element.findall("component"):
        xhw = text_of(component, "xhw")
        if xhw:
            tokens = [_word(t) for t in xhw.split()]
            xs += tokens[0::3]
            ys += tokens[1::3]
            widths += tokens[2::3]
            continue
        tokens = [_word(t) for t in text_of(component, "xy").split()]
        if kind == "curve":
            _check_pairs(tokens)
        xs += tokens[0::2]
        ys += tokens[1::2][: len(tokens[0::2])]
    value: dict[str, Any] = {
        "type": kind,
        "label": text_of(element, "about/label"),
        "x": xs[: len(ys)],
        "y": ys,
        "units": {"x": x_axis["units"], "y": y_axis["units"]},
        "labels": {"x": x_axis["label"], "y": y_axis["label"]},
    }
    if widths:
        value["width"] = widths
    description = text_of(element, "about/description")
    if description:
        value["description"] = description
    group = text_of(element, "about/group")
    if group:
        value["group"] = group
    scales = {k: a["scale"] for k, a in (("x", x_axis), ("y", y_axis)) if a["scale"]}
    if scales:
        value["scale"] = scales
    return value


class BrokenOutput(ValueError):
    """An output Rappture cannot load either (a curve's xy data that is not pairs of numbers)."""


def _check_pairs(tokens: list[float | str]) -> None:
    """Refuse a curve component's xy data that is not pairs of numbers. Rappture's own curve reads it into a
    numeric vector, which fails on a word; a count that is odd leaves x and y of different lengths, and Rappture
    drops the component."""
    word = next((i for i, t in enumerate(tokens) if isinstance(t, str)), None)
    if word is not None:
        raise BrokenOutput(f"its xy data holds {_preview(tokens[word])!r} (value {word + 1} of {len(tokens)}), "
                           "which is not a number")
    if len(tokens) % 2:
        raise BrokenOutput(f"its xy data holds {len(tokens)} numbers, an odd count: it must be x y pairs")


def _table(element: ET.Element) -> dict[str, Any]:
    columns = [
        {"id": c.get("id") or "", "label": text_of(c, "label"), "units": text_of(c, "units")}
        for c in element.findall("column")
    ]
    rows = [[_word(t) for t in line.split()] for line in text_of(element, "data").splitlines() if line.strip()]
    return {"type": "table", "label": text_of(element, "about/label"), "columns": columns, "rows": rows}


def _scalar(element: ET.Element, kind: str) -> dict[str, Any]:
    text = text_of(element, "current")
    value: Any = text
    if kind == "integer":
        parsed = split_number(text)
        value = int(parsed[0]) if parsed is not None and parsed[0].is_integer() else text
    elif kind == "boolean":
        value = BOOLEAN_WORDS.get(text.lower(), text)
    elif kind == "multichoice":
        value = [v.strip() for v in text.split(",") if v.strip()]
    return {"type": kind, "label": text_of(element, "about/label"), "value": value}


def _number(element: ET.Element) -> dict[str, Any]:
    text = text_of(element, "current")
    units = text_of(element, "units")
    parsed = split_number(text)
    value: Any = None
    if parsed is not None:
        value, given = parsed
        if given and units and given != units:
            from .units import UnitError, to_units

            try:
                value = to_units(value, given, units)
            except UnitError:
                value, units = parsed
        elif given and not units:
            units = given
    return {"type": "number", "label": text_of(element, "about/label"), "value": value, "units": units, "text": text}


IMAGE_LIMIT = 64 * 1024 * 1024
"""The most bytes a ``zb64`` image output inflates to (about 64 KiB of run file can hold 64 MiB of zeros)."""


def _inflate(data: bytes) -> bytes:
    """``data`` (zlib or gzip) inflated, at most :data:`IMAGE_LIMIT` bytes of it (BrokenOutput past it)."""
    inflater = zlib.decompressobj(31 if data[:2] == b"\x1f\x8b" else 15)
    out = inflater.decompress(data, IMAGE_LIMIT + 1)
    if len(out) > IMAGE_LIMIT:
        raise BrokenOutput(f"its zb64 data inflates past the {IMAGE_LIMIT // (1024 * 1024)} MiB an image may have")
    return out


def _image(element: ET.Element) -> tuple[bytes, str] | None:
    """The image's bytes and MIME type (Rappture's ``@@RP-ENC:b64``/``zb64`` headers understood).

    Raises:
        BrokenOutput: ``zb64`` data inflating past :data:`IMAGE_LIMIT`.
    """
    text = text_of(element, "current")
    if not text:
        return None
    compressed = False
    if text.startswith("@@RP-ENC:"):
        header, _, text = text.partition("\n")
        compressed = header.strip().endswith("zb64")
    try:
        data = base64.b64decode("".join(text.split()), validate=True)
        if compressed:
            data = _inflate(data)
    except BrokenOutput:
        raise
    except (ValueError, OSError, zlib.error):
        return None
    mime = sniff_mime_type(data)
    return (data, mime) if mime and mime.startswith("image/") else None


SUMMARY_CHARS = 200
"""A scalar output's value is quoted whole in the summary up to this many characters; a longer one
(a long ``string``) by its start and its length: the value itself is in the structured outputs (or
their resource), not repeated in the text a model reads."""


def _preview(value: Any) -> str:
    text = str(value)
    if len(text) <= SUMMARY_CHARS:
        return text
    return f"{text[:80]}… ({len(text)} characters in all)"


def read_outputs(root: ET.Element, tool: str, inline_limit: int | None = None) -> Outputs:
    """Read the ``<output>`` of a run file (``root`` is its ``<run>``).

    Raises:
        ToolError: a curve whose xy data is not pairs of numbers (a word in it, or an odd count), as Rappture's
            own curve cannot load it: the run's output is broken (the message names the curve and the value).
    """
    found = Outputs()
    section = root.find("output")
    if section is None:
        return found
    for element in section:
        if not isinstance(element.tag, str):
            continue
        kind, name = element.tag, _name(element, section)
        label = text_of(element, "about/label") or name
        if kind in RUN_KEYS and element.get("id") is None:
            found.run[kind] = text_of(element)
            continue
        try:
            picture = _image(element) if kind == "image" else None
        except BrokenOutput as exc:
            raise ToolError(f"Rappture tool '{tool}': its output image {name!r} cannot be read: {exc}") from None
        if picture is not None:
            found.images.append(picture)
            found.data[name] = {"type": "image", "label": label, "mimeType": picture[1]}
            found.summary.append(f"{label} ({name}): an image (below).")
            continue
        if kind == "log":  # its text as data too: a job's result (the structured content) carries it
            value: dict[str, Any] = {"type": "log", "label": label, "text": text_of(element)}
            line = f"{label}: a log of {len(value['text'].splitlines())} lines"
        elif kind in ("curve", "histogram"):
            try:
                value = _curve(element, kind)
            except BrokenOutput as exc:
                raise ToolError(f"Rappture tool '{tool}': its output curve {name!r} cannot be read: {exc} (Rappture "
                                "cannot load it either); fix what the program writes there") from None
            found.plotted.append({**value, "name": name})
            line = f"{label} ({kind} {name}): {len(value['y'])} points"
        elif kind == "table":
            value = _table(element)
            if plots.levels_of(value) is not None:
                found.plotted.append({**value, "name": name})
            line = f"{label} (table {name}): {len(value['rows'])} rows of " + ", ".join(
                c["label"] or c["id"] for c in value["columns"]
            )
        elif kind == "number":
            value = _number(element)
            line = f"{label}: {value['text']}"
        elif kind in _SCALARS:
            value = _scalar(element, kind)
            line = f"{label}: {_preview(value['value'])}"
        else:
            xml = ET.tostring(element, encoding="unicode")
            uri = f"rappture://{tool}/output/{kind}/{name}"
            found.resources.append(EmbeddedResource(uri, text=xml, mime_type="application/xml"))
            found.data[name] = {"type": kind, "label": label, "resource": uri}
            found.summary.append(f"{label} ({kind} {name}): its XML is the resource {uri}.")
            continue
        size = len(jsonenc.dumps(value))
        if inline_limit is not None and size > inline_limit:
            uri = f"rappture://{tool}/output/{kind}/{name}.json"
            found.resources.append(EmbeddedResource(uri, text=jsonenc.dumps(value), mime_type="application/json"))
            found.data[name] = {"type": kind, "label": label, "resource": uri}
            line += f" ({size} bytes of JSON: the resource {uri})"
        else:
            found.data[name] = value
            if kind == "log":  # its text is also a block of its own
                found.logs.append(value["text"])
                line += " (below)."
        found.summary.append(line)
    return found


def tool_result(found: Outputs, tool: str, *, plot: bool = True, figure_dpi: float | None = None) -> ToolResult:
    """The call's result: a text summary, the structured outputs (also as JSON text), plots,
    images, logs and embedded resources."""
    structured = {"outputs": found.data, "run": found.run}
    content: list[Any] = []
    head = f"Rappture tool '{tool}' finished"
    if found.run.get("status"):
        head += f" (status {found.run['status']})"
    content.append(TextContent("\n".join([head + ".", *found.summary])))
    if plot and found.plotted:
        for png in plots.pictures(found.plotted, dpi=figure_dpi):
            content.append(ImageContent(png, "image/png"))
    content += [ImageContent(data, mime) for data, mime in found.images]
    content += [TextContent(log) for log in found.logs if log]
    content += found.resources
    content.append(TextContent(jsonenc.dumps(structured)))
    return ToolResult(content=content, structured_content=structured)
