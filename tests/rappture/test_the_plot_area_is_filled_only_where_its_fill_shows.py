"""A plot's area is not filled again when its fill is the figure's own colour, and the picture is unchanged.

Issue 28 (a Rappture call within 1.05x its command alone): the plot area's white fill, drawn over the
figure's white one, was a second fill of most of the picture for the same pixels. It is left out only
then: a plot area of another colour (a style's ``axes.facecolor``) is still filled.
"""

from __future__ import annotations

import io
import math
from typing import Any

import pytest
from kept_figures import no_figures_kept

from nanohubmcp.sources.rappture import plots

pytest.importorskip("matplotlib")
import matplotlib
import numpy as np
from PIL import Image


def wave(seed: int) -> dict[str, Any]:
    xs = [i / 199 for i in range(200)]
    return {
        "type": "curve",
        "name": "wave",
        "label": "Wave",
        "x": xs,
        "y": [math.sin(6.283 * x * seed) for x in xs],
        "units": {"x": "s"},
        "labels": {"x": "Time"},
    }


def pixels(png: bytes) -> Any:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


@pytest.fixture
def clean() -> Any:
    with no_figures_kept():
        yield


def test_a_plot_is_the_same_picture_as_with_its_white_area_filled(clean: None, monkeypatch: pytest.MonkeyPatch) -> None:
    blank = plots._blank

    def filled(dpi: float, used: Any = None) -> tuple[Any, Any]:
        figure, axes = blank(dpi, used)
        axes.patch.set_visible(True)  # matplotlib's own way: the plot area filled over the figure
        return figure, axes

    for seed in (1, 3):
        [ours] = plots.pictures([wave(seed)])
        assert not plots._used[0].axes[0].patch.get_visible()
        plots._used.clear()
        monkeypatch.setattr(plots, "_blank", filled)
        [matplotlibs] = plots.pictures([wave(seed)])
        monkeypatch.setattr(plots, "_blank", blank)
        plots._used.clear()
        assert np.array_equal(pixels(ours), pixels(matplotlibs))


def test_a_plot_area_of_another_colour_is_still_filled(clean: None) -> None:
    with matplotlib.rc_context({"axes.facecolor": "#e0e0f0"}):
        [png] = plots.pictures([wave(1)])
    assert plots._used[0].axes[0].patch.get_visible()
    shown = pixels(png).astype(int)  # (mostly not background: Pillow's octree, a level or two off)
    assert (np.abs(shown[0, 0] - (255, 255, 255)) <= 2).all()  # the figure, around the plot area
    inside = shown[60:340:20, 140:600:20].reshape(-1, 3)
    area = (np.abs(inside - (224, 224, 240)) <= 2).all(axis=1)
    assert area.mean() > 0.5  # the plot area's own colour, under the curve
