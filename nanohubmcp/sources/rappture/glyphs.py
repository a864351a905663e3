"""An Agg canvas for plots whose texts are laid out and rasterised once, then drawn again from there.

matplotlib 3.11's Agg renderer draws a text by laying it out (HarfBuzz shapes the string) and then
drawing it one glyph at a time: for each glyph it sets the font's size (FreeType runs the font's
hinting program again), loads and hints the outline and rasterises it at the glyph's place, to
1/64 of a pixel. That is half the drawing of a plot (bench/rappture.md), and the next plot has
mostly the same texts: tick labels, axis labels, titles. So this renderer keeps

- each text's layout, by string, font properties, resolution and thread (a layout names the
  thread's own FreeType faces, which matplotlib keeps per thread),
- each glyph's image, by face, size, resolution, glyph, angle, hinting and where the glyph's origin
  falls within a pixel (to 1/64): a glyph rasterised whole pixels away is the same image moved;
- each font's line metrics (ascent, descent, line gap), which matplotlib's text layout otherwise
  reads from the font's tables for every text it measures or draws.

The pixels are the ones matplotlib draws itself (tests compare them); mathematical text is drawn as
matplotlib draws it, from kept glyph images. :func:`canvas` gives this canvas with matplotlib 3.11
and matplotlib's own elsewhere (the renderer's text path is private, and the next release changes
it and keeps glyphs itself). At most :data:`MAX_KEPT` of each are kept (a glyph image is a few
hundred bytes); when full, they are all let go.
"""

from __future__ import annotations

import functools
import math
import threading
from typing import Any

__all__ = ["MAX_KEPT", "canvas"]

MAX_KEPT = 4096
"""At most this many glyph images, text layouts and font metrics are kept (of each)."""

_images: dict[tuple[Any, ...], tuple[Any, Any, int, int, float]] = {}
_layouts: dict[tuple[Any, ...], list[tuple[Any, ...]]] = {}
_metrics: dict[tuple[Any, ...], tuple[Any, Any, Any]] = {}


def _keep(kept: dict[Any, Any], key: Any, value: Any) -> None:
    if len(kept) >= MAX_KEPT:
        kept.clear()
    kept[key] = value


class _Keeper:
    """Stands in for the Agg renderer while one glyph is drawn: draws it and keeps its image."""

    def __init__(self, agg: Any) -> None:
        self.agg = agg
        self.drawn: tuple[Any, int, int, float] | None = None

    def draw_text_image(self, image: Any, x: int, y: int, angle: float, gc: Any) -> None:
        import numpy as np

        self.drawn = (np.array(image), x, y, angle)  # a copy: FreeType's buffer is its own
        self.agg.draw_text_image(image, x, y, angle, gc)


@functools.cache
def _classes() -> tuple[type, type] | None:
    """The canvas and renderer classes (made once matplotlib is imported); None on other versions."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg, get_hinting_flag
    from matplotlib.font_manager import fontManager, get_font

    if not matplotlib.__version__.startswith("3.11.") or not hasattr(RendererAgg, "_draw_text_glyphs_and_boxes"):
        return None

    class KeepingRenderer(RendererAgg):
        """matplotlib's Agg renderer, drawing texts from kept layouts and glyph images."""

        def draw_text(
            self, gc: Any, x: float, y: float, s: str, prop: Any, angle: float, ismath: Any = False, mtext: Any = None
        ) -> None:
            if ismath:
                super().draw_text(gc, x, y, s, prop, angle, ismath, mtext)
                return
            features = mtext.get_fontfeatures() if mtext is not None else None
            language = mtext.get_language() if mtext is not None else None
            flags = get_hinting_flag()
            key = (s, prop, self.dpi, flags, str(features), str(language), threading.get_ident())
            glyphs = _layouts.get(key)
            if glyphs is None:
                font = self._prepare_font(prop)
                size = prop.get_size_in_points()
                laid = font._layout(s, flags=flags, features=features, language=language)
                glyphs = [(item.ft_object, size, item.glyph_index, 0, 1, item.x, item.y) for item in laid]
                _keep(_layouts, (s, prop.copy(), *key[2:]), glyphs)
            self._draw_text_glyphs_and_boxes(gc, x, y, angle, glyphs, [])

        def _get_font_height_metrics(self, prop: Any) -> tuple[float, float, float] | tuple[None, None, None]:
            """The font's ascent, descent and line gap in pixels (matplotlib's text layout asks its
            renderer first), from its OS/2 or hhea table as the layout reads them, kept per font."""
            key = (prop, self.dpi)
            metrics = _metrics.get(key)
            if metrics is None:
                metrics = None, None, None
                font: Any = get_font(fontManager._find_fonts_by_props(prop))
                for table, gap, ascent, descent in (
                    ("OS/2", "sTypoLineGap", "sTypoAscender", "sTypoDescender"),
                    ("hhea", "lineGap", "ascent", "descent"),
                ):
                    values = font.get_sfnt_table(table)
                    if values is not None:
                        per_em = font.get_sfnt_table("head")["unitsPerEm"]
                        scale = 1 / per_em * prop.get_size_in_points() * self.dpi / 72  # as the layout computes it
                        metrics = values[ascent] * scale, -values[descent] * scale, values[gap] * scale
                        break
                _keep(_metrics, (prop.copy(), self.dpi), metrics)
            return metrics

        def _draw_text_glyphs_and_boxes(
            self, gc: Any, x: float, y: float, angle: float, glyphs: Any, boxes: Any
        ) -> None:
            cos, sin = math.cos(math.radians(angle)), math.sin(math.radians(angle))
            common = (self.dpi, angle, get_hinting_flag(), gc.get_antialiased())
            for glyph in glyphs:
                font, size, index, slant, extend, dx, dy = glyph
                # where the glyph's origin falls, in 1/64 pixel (FreeType's y upwards), as matplotlib puts it
                across = round(0x40 * (x + dx * cos - dy * sin))
                up = round(0x40 * (self.height - y + dx * sin + dy * cos))
                key = (id(font), size, index, slant, extend, across % 64, up % 64, *common)
                kept = _images.get(key)
                if kept is not None and kept[0] is font:
                    _, image, left, bottom, turned = kept
                    self._renderer.draw_text_image(image, left + across // 64, bottom - up // 64, turned, gc)
                    continue
                keeper = _Keeper(self._renderer)
                self._renderer = keeper
                try:
                    super()._draw_text_glyphs_and_boxes(gc, x, y, angle, [glyph], [])
                finally:
                    self._renderer = keeper.agg
                if keeper.drawn is not None:
                    image, left, bottom, turned = keeper.drawn
                    _keep(_images, key, (font, image, left - across // 64, bottom + up // 64, turned))
            if boxes:
                super()._draw_text_glyphs_and_boxes(gc, x, y, angle, [], boxes)

    class KeepingCanvas(FigureCanvasAgg):
        """matplotlib's Agg canvas, with a :class:`KeepingRenderer`."""

        _made_for: tuple[int, int, float] | None = None

        def get_renderer(self) -> Any:
            made_for = (*self.get_width_height(physical=True), self.figure.dpi)
            if self._made_for != made_for:
                self.renderer = KeepingRenderer(*made_for)
                self._made_for = made_for
            return self.renderer

    return KeepingCanvas, KeepingRenderer


def canvas(figure: Any) -> Any:
    """An Agg canvas for ``figure`` (attached to it) whose texts are drawn from kept layouts and glyph
    images; matplotlib's own ``FigureCanvasAgg`` on a matplotlib other than 3.11."""
    made = _classes()
    if made is None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        return FigureCanvasAgg(figure)
    return made[0](figure)
