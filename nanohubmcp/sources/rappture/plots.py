"""PNG plots of a run's curves, histograms and tables, drawn with matplotlib when it is installed.

Curves that share an ``about.group`` are drawn on one plot, as Rappture's viewer overlays them;
every other curve or histogram gets a plot of its own (at most :data:`MAX_PLOTS`). A table with a
numeric column is drawn as Rappture draws one, as levels (horizontal lines at the values, labelled by
the first column: energy levels, say). Axis labels carry the units; ``scale`` ``log`` axes are
logarithmic. matplotlib is imported only here, when the first run of a tool that may plot starts;
without it there are no plots (the data is in the result anyway). The figures are made without
pyplot, so drawing is safe on any thread.

What is left to do once the run file is read costs about a sixth of what a new ``Figure`` and
``savefig`` would (45 M against 297 M instructions for a 200-point curve, bench/rappture.md), and
starts as the program names its run file, while its process ends (:mod:`.tool`):

- :func:`prepare`, called once a run's program has started (the first time :data:`PREPARE_AFTER` s after:
  :func:`prepare_soon`; not before the start: the thread holds the GIL for some ms, which delayed the start
  of the program by as much), makes the blank figures (a figure on its Agg canvas,
  its axes and their tick marks) on a background thread while the tool's program runs, importing
  matplotlib there on the first run; :func:`pictures` draws on those (or makes its own when none is
  ready). Figures are used again: cleared on that thread, they keep their renderer, which
  remembers the sizes of the texts it has measured. As many are kept as the last result had
  plots.
- Texts are laid out and rasterised once and drawn again from there (:mod:`.glyphs`: a canvas
  whose renderer keeps text layouts, glyph images and line metrics across plots, the same pixels).
- The plot area is not filled when its colour is the figure's (a second fill of most of the
  picture, for the same pixels); a style's other ``axes.facecolor`` is filled as usual.
- The title and the x axis's label sit at fixed places, so matplotlib measures no text to place
  them (under slanted category labels of a bar chart, the label is placed below them as usual; the
  y axis's label goes beside its tick labels, whose width varies).
- The PNG holds at most 256 colours, compressed at zlib level :data:`PNG_LEVEL`: about a third
  of the bytes of matplotlib's RGBA PNG, at a small part of its encoding work. A plot is mostly
  its background, with a few colours and the shades of their anti-aliased edges (some 500 in
  all): the palette is the background and the 255 commonest other colours, exactly, and a rarer
  shade is drawn in the palette colour nearest to it (:func:`_indexed`, a fifth of the work of
  Pillow's fast octree, which moves every colour, the background too, by a level or two). A
  picture that is not mostly background, or holds thousands of colours, goes through the octree.
"""

from __future__ import annotations

import io
import logging
import sys
import threading
import zlib
from collections.abc import Callable
from typing import Any

from ...server.wire.fork_safe import ForkSafeLock, after_fork_in_child
from ...server.wire.late_imports import late_imports
from . import glyphs

__all__ = ["MAX_PLOTS", "PNG_LEVEL", "PREPARE_AFTER", "pictures", "prepare", "prepare_soon"]

MAX_PLOTS = 8
"""At most this many plots per result."""

PNG_LEVEL = 1
"""zlib compression level of the PNG plots (0-9; matplotlib's own default is 6)."""

_SIZE = (6.4, 4.0)  # inches: 640 x 400 pixels at 100 dpi
_TICKS = 7  # tick marks made ahead per axis (5 intervals: at most 6 ticks, and one spare)
_log = logging.getLogger(__name__)

_lock = ForkSafeLock()  # (a child forked while another thread held one, a processes job's, has it free)
_importing = ForkSafeLock()  # matplotlib imported by one thread at a time (see _library)
_spares: list[tuple[float, Any, Any]] = []  # (dpi, figure, axes), blank; at most MAX_PLOTS
_used: list[Any] = []  # figures drawn on, to be cleared and used again; with _spares at most _wanted
_wanted = 1  # how many to keep ready: the number of plots in the last result
_filling = False  # a background thread is making spares


def _forked() -> None:  # the thread making spares, gone in a forked child, is no longer making them
    global _filling
    _filling = False


after_fork_in_child(_forked)


def _library() -> tuple[Any, Any]:
    """matplotlib's ``Figure`` and ``MaxNLocator`` (and its Agg backend imported). Imported under a
    lock: two threads importing matplotlib for the first time at once break each other's import (its
    modules import each other, and one thread sees the other's half-made module). A late import of a served path
    (~63k objects, :mod:`...server.wire.late_imports`): a served process freezes them once imported."""
    with _importing, late_imports():
        import matplotlib.backends.backend_agg  # noqa: F401  (the canvas, glyphs.canvas)
        from matplotlib.figure import Figure
        from matplotlib.ticker import MaxNLocator
    return Figure, MaxNLocator


def _blank(dpi: float, used: Any = None) -> tuple[Any, Any]:
    """A blank figure with its axes and their first tick marks made (what does not depend on the
    data): ``used`` cleared, else a new figure on an Agg canvas of its own."""
    if used is None:
        Figure, _ = _library()
        figure = Figure(figsize=_SIZE, dpi=dpi)
        glyphs.canvas(figure)  # kept with the figure: its renderer, and the text sizes it measured, too
    else:
        figure = used
        figure.clear()
    axes = figure.add_subplot()
    if axes.patch.get_facecolor() == figure.patch.get_facecolor() and figure.patch.get_facecolor()[3] == 1:
        axes.patch.set_visible(False)  # its fill, over the figure's of the same colour: the same pixels
    axes.xaxis.get_major_ticks(_TICKS)
    axes.yaxis.get_major_ticks(_TICKS)
    return figure, axes


def _fill(dpi: float) -> None:
    global _filling
    try:
        while True:
            with _lock:
                if sum(1 for d, _, _ in _spares if d == dpi) >= _wanted:
                    return
                used = next((f for f in _used if f.dpi == dpi), None)
                if used is not None:
                    _used.remove(used)
            made = _blank(dpi, used)
            with _lock:
                _spares[:] = [s for s in _spares if s[0] == dpi][: MAX_PLOTS - 1]  # another dpi: no longer used
                _spares.append((dpi, *made))
    except ImportError:
        return  # no matplotlib: pictures() says so by returning no plots
    except Exception:  # a spare is an optimisation: pictures() makes its own figures without one
        _log.debug("making a blank figure failed", exc_info=True)
    finally:
        with _lock:
            _filling = False


def prepare(dpi: float | None = None) -> None:
    """Make blank figures for the next :func:`pictures` on a background thread; returns at once.

    Called once a run's program has started, so that the figures (and, the first time, matplotlib's import) are
    made while the tool's program runs. Does nothing when a thread is already at it; without
    matplotlib the thread ends at once.
    """
    global _filling
    with _lock:
        if _filling:
            return
        _filling = True
    threading.Thread(target=_fill, args=(dpi or 100.0,), daemon=True, name="nanohubmcp-rappture-figures").start()


PREPARE_AFTER = 0.3
"""Seconds a run's program runs, before matplotlib is first imported, until :func:`prepare_soon` starts making
figures: that import (seconds of CPU, holding the GIL) delayed the answer of a program that failed at once
(trial64 F6)."""


def prepare_soon(dpi: float | None = None) -> Callable[[], object]:
    """:func:`prepare` now once matplotlib is imported, else after :data:`PREPARE_AFTER` s; returns what cancels
    it, called when the program has ended (a run over sooner makes no figures ahead: a failure needs none, and a
    result makes its own)."""
    if "matplotlib.figure" in sys.modules:
        prepare(dpi)
        return lambda: None
    timer = threading.Timer(PREPARE_AFTER, prepare, args=(dpi,))
    timer.daemon = True
    timer.name = "nanohubmcp-rappture-figures-soon"
    timer.start()
    return timer.cancel


def _take(dpi: float) -> tuple[Any, Any]:
    """A blank figure and axes: a ready one of this dpi, else a new one."""
    with _lock:
        for index, (made_dpi, figure, axes) in enumerate(_spares):
            if made_dpi == dpi:
                del _spares[index]
                return figure, axes
    return _blank(dpi)


def _axis_label(value: dict[str, Any], axis: str) -> str:
    label = value["labels"].get(axis) or axis
    units = value["units"].get(axis)
    return f"{label} [{units}]" if units else label


def levels_of(table: dict[str, Any]) -> tuple[int, int] | None:
    """``(label column, value column)`` of a table drawn as levels (Rappture's energy-level view): the
    last column holding numbers only, labelled by the first column; None when no column is numeric."""
    rows = [r for r in table["rows"] if r]
    width = min((len(r) for r in rows), default=0)
    numeric = [c for c in range(width) if all(isinstance(r[c], float) for r in rows)]
    if not rows or not numeric:
        return None
    return 0, numeric[-1]


def _levels(axes: Any, table: dict[str, Any]) -> None:
    """A table as horizontal levels at its numeric column's values, each labelled by its first column."""
    found = levels_of(table)
    assert found is not None
    name_at, value_at = found
    column = table["columns"][value_at] if value_at < len(table["columns"]) else {}
    for row in table["rows"]:
        axes.hlines(row[value_at], 0.0, 1.0)
        if name_at != value_at:
            axes.annotate(
                str(row[name_at]),
                (1.0, row[value_at]),
                xytext=(4, 0),
                textcoords="offset points",
                va="center",
                annotation_clip=False,
            )
    axes.set_xticks([])
    axes.set_xlim(0.0, 1.0)
    units = column.get("units")
    label = column.get("label") or column.get("id") or "value"
    axes.set_ylabel(f"{label} [{units}]" if units else label)
    axes.set_title(table.get("label") or table["name"], y=1.0)


def _numbers(values: list[Any]) -> bool:
    return all(isinstance(v, float) for v in values)


def _indexed(rgba: Any, size: tuple[int, int]) -> Any:
    """The RGBA pixels (alpha dropped) as a palette image, or None when the picture is not mostly
    its background (the top left pixel's colour: at least 3/4 of it) or has over 4,096 colours.

    The palette is the background and the 255 commonest other colours, as they are; each rarer
    colour (an anti-aliased edge's shade) becomes the palette colour nearest to it (squared
    distance in RGB). With up to 256 colours the picture is exact.
    """
    import numpy as np  # matplotlib's own dependency

    width, height = size
    pixels = np.frombuffer(rgba, dtype="<u4") & 0xFFFFFF  # R | G << 8 | B << 16
    background = pixels[0]
    drawn = np.flatnonzero(pixels != background)
    if 4 * len(drawn) > len(pixels):
        return None
    found = pixels[drawn]
    # the colours by sorting and a binary search: np.unique's inverse and counts (an argsort) cost twice as much
    ordered = np.sort(found)
    first = np.ones(len(ordered), bool)  # where each colour's run begins
    first[1:] = ordered[1:] != ordered[:-1]
    colours = ordered[first]
    if len(colours) > 4096:
        return None
    which = np.searchsorted(colours, found)
    counts = np.bincount(which, minlength=len(colours))
    order = np.argsort(-counts, kind="stable")  # commonest first
    palette = np.concatenate(([background], colours[order[:255]]))
    index = np.empty(len(colours), np.uint8)
    index[order[:255]] = np.arange(1, min(len(colours), 255) + 1)
    channels = np.stack([(palette >> shift) & 0xFF for shift in (0, 8, 16)], axis=1).astype(np.uint8)
    if len(colours) > 255:  # the rarest: the nearest palette colour (exact in float32 below 2**24)
        rare = colours[order[255:]]
        rgb = np.stack([(rare >> shift) & 0xFF for shift in (0, 8, 16)], axis=1).astype(np.float32)
        ours = channels.astype(np.float32)
        index[order[255:]] = ((ours * ours).sum(axis=1) - 2 * (rgb @ ours.T)).argmin(axis=1)
    indices = np.zeros(width * height, np.uint8)  # 0: the background
    indices[drawn] = index[which]
    from PIL import Image

    picture = Image.frombuffer("P", size, indices, "raw", "P", 0, 1)
    picture.putpalette(channels.tobytes())
    return picture


def _png(figure: Any) -> bytes:
    """The figure drawn by its Agg canvas, as a palette PNG at zlib level :data:`PNG_LEVEL`."""
    from PIL import Image  # matplotlib's own dependency, which its savefig uses for PNG too

    canvas = figure.canvas
    canvas.draw()
    size = canvas.get_width_height(physical=True)
    colours = _indexed(canvas.buffer_rgba(), size)
    if colours is None:  # not mostly background: Pillow's octree
        picture = Image.frombuffer("RGBA", size, canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
        colours = picture.convert("RGB").quantize(256, method=Image.Quantize.FASTOCTREE)
    buffer = io.BytesIO()
    colours.save(buffer, format="png", compress_level=PNG_LEVEL, compress_type=zlib.Z_RLE)
    with _lock:
        if len(_used) + len(_spares) < _wanted:
            _used.append(figure)
    return buffer.getvalue()


def pictures(series: list[dict[str, Any]], *, dpi: float | None = None) -> list[bytes]:
    """PNG bytes of one plot per group of curves (or per histogram, or table); [] without matplotlib."""
    global _wanted
    try:
        MaxNLocator = _library()[1]
    except ImportError:
        return []
    groups: dict[str, list[dict[str, Any]]] = {}
    for value in series:
        key = value.get("group") if value["type"] == "curve" and value.get("group") else value["name"]
        groups.setdefault(str(key), []).append(value)
    chosen = list(groups.items())[:MAX_PLOTS]
    _wanted = max(1, len(chosen))
    pngs = []
    for key, members in chosen:
        figure, axes = _take(dpi or 100.0)
        first = members[0]
        if first["type"] == "table":
            _levels(axes, first)
            figure.subplots_adjust(left=0.17, right=0.8, bottom=0.06, top=0.9)
            pngs.append(_png(figure))
            continue
        bottom, slanted = 0.14, False
        for value in members:
            label = value.get("label") or value["name"]
            if value["type"] == "histogram":
                positions = value["x"] if _numbers(value["x"]) else list(range(len(value["x"])))
                width = value.get("width") or 0.8
                axes.bar(positions, value["y"], width=width, label=label)
                if not _numbers(value["x"]):
                    axes.set_xticks(positions, [str(x) for x in value["x"]], rotation=45, ha="right")
                    bottom, slanted = 0.28, True  # room for the slanted labels and the axis label under them
            elif _numbers(value["x"]) and _numbers(value["y"]):
                axes.plot(value["x"], value["y"], label=label)
        for axis, setter, ticks in (("x", axes.set_xscale, axes.xaxis), ("y", axes.set_yscale, axes.yaxis)):
            if first.get("scale", {}).get(axis) == "log":
                setter("log")
            elif axis == "y" or first["type"] == "curve" or _numbers(first["x"]):
                ticks.set_major_locator(MaxNLocator(5))  # fewer ticks: a third less drawing time
        axes.set_xlabel(_axis_label(first, "x"))
        axes.set_ylabel(_axis_label(first, "y"))
        axes.set_title(key if len(members) > 1 else (first.get("label") or first["name"]), y=1.0)
        if not slanted:  # tick labels one line high: a fixed place, found without measuring them
            axes.xaxis.set_label_coords(0.5, -0.1)
        if len(members) > 1:
            axes.legend()
        figure.subplots_adjust(left=0.17, right=0.97, bottom=bottom, top=0.9)  # tight_layout would draw twice
        pngs.append(_png(figure))
    return pngs
