"""PNG plots of a run's curves and histograms, drawn with matplotlib when it is installed.

Curves that share an ``about.group`` are drawn on one plot, as Rappture's viewer overlays them;
every other curve or histogram gets a plot of its own (at most :data:`MAX_PLOTS`). Axis labels
carry the units; ``scale`` ``log`` axes are logarithmic. matplotlib is imported only here, on the
first run with something to plot; without it there are no plots (the data is in the result anyway).
The figures are made without pyplot, so drawing is safe on any thread.
"""

from __future__ import annotations

import io
from typing import Any

__all__ = ["MAX_PLOTS", "pictures"]

MAX_PLOTS = 8
"""At most this many plots per result."""


def _axis_label(value: dict[str, Any], axis: str) -> str:
    label = value["labels"].get(axis) or axis
    units = value["units"].get(axis)
    return f"{label} [{units}]" if units else label


def _numbers(values: list[Any]) -> bool:
    return all(isinstance(v, float) for v in values)


def pictures(series: list[dict[str, Any]], *, dpi: float | None = None) -> list[bytes]:
    """PNG bytes of one plot per group of curves (or per histogram); [] without matplotlib."""
    try:
        from matplotlib.figure import Figure
        from matplotlib.ticker import MaxNLocator
    except ImportError:
        return []
    groups: dict[str, list[dict[str, Any]]] = {}
    for value in series:
        key = value.get("group") if value["type"] == "curve" and value.get("group") else value["name"]
        groups.setdefault(str(key), []).append(value)
    pngs = []
    for key, members in list(groups.items())[:MAX_PLOTS]:
        figure = Figure(figsize=(6.4, 4.0), dpi=dpi or 100)
        axes = figure.add_subplot()
        first = members[0]
        for value in members:
            label = value.get("label") or value["name"]
            if value["type"] == "histogram":
                positions = value["x"] if _numbers(value["x"]) else list(range(len(value["x"])))
                width = value.get("width") or 0.8
                axes.bar(positions, value["y"], width=width, label=label)
                if not _numbers(value["x"]):
                    axes.set_xticks(positions, [str(x) for x in value["x"]], rotation=45, ha="right")
            elif _numbers(value["x"]) and _numbers(value["y"]):
                axes.plot(value["x"], value["y"], label=label)
        for axis, setter, ticks in (("x", axes.set_xscale, axes.xaxis), ("y", axes.set_yscale, axes.yaxis)):
            if first.get("scale", {}).get(axis) == "log":
                setter("log")
            elif axis == "y" or first["type"] == "curve" or _numbers(first["x"]):
                ticks.set_major_locator(MaxNLocator(5))  # fewer ticks: a third less drawing time
        axes.set_xlabel(_axis_label(first, "x"))
        axes.set_ylabel(_axis_label(first, "y"))
        axes.set_title(key if len(members) > 1 else (first.get("label") or first["name"]))
        if len(members) > 1:
            axes.legend()
        figure.subplots_adjust(left=0.15, right=0.97, bottom=0.14, top=0.9)  # tight_layout would draw twice
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png")
        pngs.append(buffer.getvalue())
    return pngs
