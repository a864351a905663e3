"""A plot's texts are drawn from layouts and glyph images kept from earlier plots, as matplotlib draws them.

Issue 28: half of a plot's drawing was matplotlib 3.11 laying out each text and rasterising each
of its glyphs again (the font's hinting program run per glyph). Layouts are kept per text, images
per glyph and fraction of a pixel; what a user sees must not change at all.
"""

from __future__ import annotations

import math
import threading
from typing import Any

import pytest

pytest.importorskip("matplotlib")
import matplotlib
import matplotlib.text
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.figure import Figure

from nanohubmcp.sources.rappture import glyphs


@pytest.fixture(autouse=True)
def nothing_kept() -> Any:
    for kept in (glyphs._images, glyphs._layouts, glyphs._metrics):
        kept.clear()
    yield
    for kept in (glyphs._images, glyphs._layouts, glyphs._metrics):
        kept.clear()


@pytest.fixture
def rasterised(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many glyphs matplotlib's own renderer draws (rasterises), per call."""
    drawn: list[int] = []
    real = RendererAgg._draw_text_glyphs_and_boxes

    def counted(self: Any, gc: Any, x: float, y: float, angle: float, items: Any, boxes: Any) -> None:
        items = list(items)
        drawn.append(len(items))
        real(self, gc, x, y, angle, items, boxes)

    monkeypatch.setattr(RendererAgg, "_draw_text_glyphs_and_boxes", counted)
    return drawn


def figure(seed: int, *, keep: bool, turned: float = 0.0) -> np.ndarray:
    """A plot with tick labels, axis labels (units, Greek, mathtext with a fraction's bar), a title and
    a legend, drawn by its Agg canvas."""
    picture = Figure(figsize=(6.4, 4.0), dpi=100)
    if keep:
        glyphs.canvas(picture)
    else:
        FigureCanvasAgg(picture)
    axes = picture.add_subplot()
    xs = [i / 99 for i in range(100)]
    axes.plot(xs, [seed * math.sin(6.283 * x * seed) for x in xs], label=f"wave {seed}")
    axes.set_xlabel("Time [s]", rotation=turned)
    axes.set_ylabel(r"$\frac{V}{2}$ (µV)")
    axes.set_title("Ωmega")
    axes.legend()
    for label in axes.get_xticklabels():
        label.set_rotation(turned)
    picture.canvas.draw()
    return np.asarray(picture.canvas.buffer_rgba()).copy()


def test_texts_drawn_from_kept_glyphs_are_the_pixels_matplotlib_draws() -> None:
    for seed in (1, 2, 3, 7):
        for turned in (0.0, 30.0, 45.0):
            assert np.array_equal(figure(seed, keep=True, turned=turned), figure(seed, keep=False, turned=turned))
    assert glyphs._images


def test_a_second_plot_of_the_same_texts_lays_out_and_rasterises_nothing(
    rasterised: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    laid: list[str] = []
    real = RendererAgg._prepare_font
    monkeypatch.setattr(RendererAgg, "_prepare_font", lambda self, prop: (laid.append("font"), real(self, prop))[1])
    tables: list[str] = []
    font_of = matplotlib.text.get_font
    monkeypatch.setattr(matplotlib.text, "get_font", lambda *a, **k: (tables.append("font"), font_of(*a, **k))[1])
    figure(2, keep=True)
    kept, first, texts = len(glyphs._images), sum(rasterised), len(laid)
    rasterised.clear()
    laid.clear()
    figure(2, keep=True)

    assert first == kept > 20
    assert texts > 10
    assert sum(rasterised) == 0
    assert len(laid) < texts  # only sizes are measured again (a new figure's renderer), no layout
    assert len(glyphs._images) == kept
    assert tables == []  # the fonts' line metrics: from the renderer, not read from the font's tables
    assert glyphs._metrics


def test_the_kept_images_and_layouts_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(glyphs, "MAX_KEPT", 10)
    figure(3, keep=True)
    assert 0 < len(glyphs._images) <= 10
    assert 0 < len(glyphs._layouts) <= 10
    assert np.array_equal(figure(4, keep=True), figure(4, keep=False))


def test_plots_drawn_on_two_threads_at_once_are_the_same_pixels() -> None:
    expected = {seed: figure(seed, keep=False) for seed in (1, 5)}
    found: dict[tuple[int, int], bool] = {}

    def draw(seed: int) -> None:
        for round_ in range(4):
            found[seed, round_] = bool(np.array_equal(figure(seed, keep=True), expected[seed]))

    threads = [threading.Thread(target=draw, args=(seed,)) for seed in expected]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(found) == 8
    assert all(found.values())


def test_another_matplotlib_version_gets_its_own_canvas(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(matplotlib, "__version__", "3.12.0")
    glyphs._classes.cache_clear()
    try:
        picture = Figure()
        assert type(glyphs.canvas(picture)) is FigureCanvasAgg
        assert picture.canvas.get_renderer().__class__ is RendererAgg
    finally:
        glyphs._classes.cache_clear()
