"""A run's plots are drawn on figures made while its program ran, and cost little once it ends.

Issue 28: a Rappture call at most 1.05x its command alone (the curve's PNG was the miss). So a run
that may plot starts making blank figures (and imports matplotlib) on a background thread as the
program starts; the plot is drawn on one of those, placed without measuring its texts, and saved as
a palette PNG. What a user sees must not change: a PNG of the same size, the curve's colour, the
axis label clear of the tick labels.
"""

from __future__ import annotations

import io
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from kept_figures import no_figures_kept
from support import wait_until

from nanohubmcp.sources.rappture import load_rappture_tool, plots

pytest.importorskip("pint")
pytest.importorskip("matplotlib")
import numpy as np
from PIL import Image

HERE = Path(__file__).parent
FERMI = HERE / "tools" / "fermi" / "tool.xml"
INPUTS = HERE / "tools" / "inputs" / "tool.xml"


def curve(name: str, ys: list[float], **more: Any) -> dict[str, Any]:
    xs = [float(i) for i in range(len(ys))]
    return {
        "type": "curve",
        "name": name,
        "label": name.title(),
        "x": xs,
        "y": ys,
        "units": {"x": "s", "y": "V"},
        "labels": {"x": "Time", "y": "Potential"},
        **more,
    }


@pytest.fixture
def clean() -> Any:
    """No figures kept from an earlier test, and none left for a later one."""
    with no_figures_kept():
        yield


def test_prepare_makes_a_blank_figure_in_the_background_and_pictures_draws_on_it(clean: None) -> None:
    plots.prepare(100.0)
    wait_until(lambda: len(plots._spares) == 1, "the background thread made 1 spare figure(s)")
    (_, prepared, axes) = plots._spares[0]
    assert not axes.lines
    assert len(axes.xaxis.majorTicks) >= 6

    [png] = plots.pictures([curve("wave", [0.0, 1.0, 0.0, -1.0])], dpi=100.0)

    assert plots._spares == []
    assert plots._used == [prepared]
    picture = Image.open(io.BytesIO(png))
    assert (picture.format, picture.mode, picture.size) == ("PNG", "P", (640, 400))
    assert (31, 119, 180) in {colour for _, colour in picture.convert("RGB").getcolors(256)}  # the curve's blue

    plots.prepare(100.0)  # the next run: the used figure, cleared, is the spare
    wait_until(lambda: len(plots._spares) == 1, "the background thread made 1 spare figure(s)")
    assert plots._spares[0][1] is prepared
    assert not plots._spares[0][2].lines
    assert plots._used == []


def test_the_png_holds_the_drawn_colours_as_they_are(clean: None) -> None:
    # The palette is the background and the commonest colours exactly (Pillow's octree, used
    # before, moved every colour by a level or two, the white background too).
    [png] = plots.pictures([curve("wave", [math.sin(i / 5) for i in range(200)])])
    [figure] = plots._used
    drawn = np.asarray(figure.canvas.buffer_rgba())[..., :3]
    shown = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
    same = (drawn == shown).all(axis=2)
    assert tuple(shown[0, 0]) == (255, 255, 255)
    assert same[drawn.sum(axis=2) == 3 * 255].all()  # all the background
    assert same.mean() > 0.99  # all but a few rare shades of the curve's and the text's edges
    assert (np.abs(drawn.astype(int) - shown).max(axis=2) <= 40).all()


def rgba(colours: list[tuple[int, int, int]], size: int = 100) -> bytes:
    """A white size x size RGBA picture with ``colours`` in its last pixels."""
    pixels = np.full((size * size, 4), 255, np.uint8)
    if colours:
        pixels[-len(colours) :, :3] = colours
    return pixels.tobytes()


def test_a_palette_is_exact_up_to_256_colours_and_rare_shades_take_the_nearest() -> None:
    few = [(i, 255 - i, 7) for i in range(200)]
    picture = plots._indexed(rgba(few), (100, 100))
    assert picture.mode == "P"
    shown = np.asarray(picture.convert("RGBA")).reshape(-1, 4)
    assert np.array_equal(shown, np.frombuffer(rgba(few), np.uint8).reshape(-1, 4))

    common = [(i, 0, 0) for i in range(0, 255)] * 3  # 255 colours three times each
    rare = [(i + 1, 0, 3) for i in range(0, 250, 10)]  # 25 once: nearest is (i, 0, 0)... or (i + 1, 0, 0)
    picture = plots._indexed(rgba(common + rare), (100, 100))
    shown = np.asarray(picture.convert("RGB")).reshape(-1, 3)[-len(common + rare) :]
    assert [tuple(c) for c in shown[: len(common)]] == common
    assert [tuple(c) for c in shown[len(common) :]] == [(i + 1, 0, 0) for i in range(0, 250, 10)]


def test_a_picture_not_mostly_background_or_of_thousands_of_colours_is_left_to_the_octree(
    clean: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert plots._indexed(rgba([(0, 0, 0)] * 2600), (100, 100)) is None  # over a quarter drawn
    assert plots._indexed(rgba([(0, 0, 0)] * 2500), (100, 100)) is not None
    many = [(i % 256, i // 256, 0) for i in range(4096)]
    assert plots._indexed(rgba(many, 200), (200, 200)) is not None
    assert plots._indexed(rgba([*many, (0, 0, 255)], 200), (200, 200)) is None  # 4,097 colours
    indexed: list[object] = []
    real = plots._indexed
    monkeypatch.setattr(plots, "_indexed", lambda *a: indexed.append(real(*a)) or indexed[-1])

    [png] = plots.pictures([{**curve("bars", [1.0] * 40), "type": "histogram", "width": 1.0}])  # bars fill the axes

    assert indexed == [None]
    picture = Image.open(io.BytesIO(png))
    assert (picture.format, picture.mode, picture.size) == ("PNG", "P", (640, 400))
    assert (31, 119, 180) in {colour for _, colour in picture.convert("RGB").getcolors(256)}


def test_without_a_ready_figure_pictures_makes_its_own_at_the_asked_resolution(clean: None) -> None:
    plots.prepare(100.0)
    wait_until(lambda: len(plots._spares) == 1, "the background thread made 1 spare figure(s)")

    pngs = plots.pictures([curve("a", [1.0, 2.0]), curve("b", [2.0, 1.0])], dpi=200.0)

    assert [Image.open(io.BytesIO(p)).size for p in pngs] == [(1280, 800), (1280, 800)]
    assert plots._wanted == 2
    assert len(plots._used) == 1
    plots.prepare(200.0)
    wait_until(lambda: len(plots._spares) == 2, "the background thread made 2 spare figure(s)")
    assert {s[0] for s in plots._spares} == {200.0}  # figures of a resolution no longer asked for are let go


def test_the_y_label_stays_clear_of_wide_tick_labels(clean: None) -> None:
    plots.pictures([curve("big", [0.0, 750000.0]), curve("small", [-0.00024, 0.0])])
    for figure in plots._used:
        renderer = figure.canvas.get_renderer()
        axes = figure.axes[0]
        label = axes.yaxis.label.get_window_extent(renderer)
        low, high = axes.get_ylim()
        shown = [t for t in axes.yaxis.get_major_ticks() if t.label1.get_text() and low <= t.get_loc() <= high]
        ticks = [t.label1.get_window_extent(renderer) for t in shown]
        assert ticks
        assert all(label.x1 < tick.x0 for tick in ticks), (label, ticks)
        assert label.x0 >= 0  # inside the picture


def declaring(tmp_path: Path, outputs: str) -> Path:
    path = tmp_path / "tool.xml"
    path.write_text(f"<run><tool><command>true</command></tool><input/>{outputs}</run>")
    return path


def test_a_run_prepares_figures_only_when_its_tool_may_plot(
    clean: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fermi = load_rappture_tool(FERMI, rappture="")  # declares a curve
    assert fermi.may_plot
    assert load_rappture_tool(INPUTS, rappture="").may_plot  # declares no outputs: any may come
    values = declaring(tmp_path, "<output><number id='n'/><log/></output>")
    assert not load_rappture_tool(values, rappture="").may_plot
    assert load_rappture_tool(declaring(tmp_path, "<output><table id='t'/></output>"), rappture="").may_plot
    plots._library()  # matplotlib imported (by an earlier run): figures are prepared as a run starts (prepare_soon)
    prepared: list[float | None] = []
    real = plots.prepare
    monkeypatch.setattr(plots, "prepare", lambda dpi=None: (prepared.append(dpi), real(dpi)))

    fermi.run({}, plot=False)
    assert prepared == []
    assert plots._spares == []
    assert plots._used == []
    result = fermi.run({}, figure_dpi=150.0).to_wire()

    assert prepared == [150.0]
    assert [b["mimeType"] for b in result["content"] if b["type"] == "image"] == ["image/png"]
    wait_until(lambda: not plots._filling, "the background thread is done making figures")
    assert [f.dpi for f in plots._used] + [s[0] for s in plots._spares] == [150.0]  # one figure kept


FIRST_RUN = """
from nanohubmcp.sources.rappture import plots
plots.prepare()  # matplotlib imported on the background thread...
xs = [0.0, 1.0, 2.0]
curve = {"type": "curve", "name": "c", "x": xs, "y": xs, "units": {}, "labels": {}}
print(len(plots.pictures([curve])))  # ...while this thread wants it too
"""


def test_the_first_run_of_a_process_has_its_plot_while_matplotlib_is_still_being_imported() -> None:
    # Found by the bench: two threads importing matplotlib at once broke both imports (ImportError:
    # a partially initialized module), and the first call of a server came back without its plot.
    for _ in range(3):
        done = subprocess.run([sys.executable, "-c", FIRST_RUN], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "1", done.stderr


def test_figures_are_prepared_only_once_the_program_has_started(clean: None, monkeypatch: pytest.MonkeyPatch) -> None:
    # Found measuring (issue 28): made just before the program's start, the figure thread held the GIL
    # while the run's thread started the program: the program started 20-70 ms later at load 5.
    from nanohubmcp.sources.rappture import tool as tool_module

    fermi = load_rappture_tool(FERMI, rappture="")
    plots._library()  # imported: prepare_soon makes figures at once
    events: list[str] = []
    noted, soon = tool_module.record_group, plots.prepare_soon
    monkeypatch.setattr(tool_module, "record_group", lambda *a: (events.append("started"), noted(*a))[1])
    monkeypatch.setattr(plots, "prepare_soon", lambda *a: (events.append("prepare"), soon(*a))[1])

    result = fermi.run({}).to_wire()

    assert events == ["started", "prepare"]
    assert [b["mimeType"] for b in result["content"] if b["type"] == "image"] == ["image/png"]
