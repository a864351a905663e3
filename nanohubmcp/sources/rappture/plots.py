"""PNG plots of a run's curves, histograms and tables, drawn with matplotlib when it is installed.

Curves that share an ``about.group`` are drawn on one plot, as Rappture's viewer overlays them;
every other curve or histogram gets a plot of its own (at most :data:`MAX_PLOTS`). A table with a
numeric column is drawn as Rappture draws one, as levels (horizontal lines at the values, labelled by
the first column: energy levels, say). Axis labels
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
    axes.set_title(table.get("label") or table["name"])


def _numbers(values: list[Any]) -> bool:
    return all(isinstance(v, float) for v in values)


def pictures(series: list[dict[str, Any]], *, dpi: float | None = None) -> list[bytes]:
    """PNG bytes of one plot per group of curves (or per histogram, or table); [] without matplotlib."""
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
        bottom = 0.14
        if first["type"] == "table":
            _levels(axes, first)
            figure.subplots_adjust(left=0.15, right=0.8, bottom=0.06, top=0.9)
            buffer = io.BytesIO()
            figure.savefig(buffer, format="png")
            pngs.append(buffer.getvalue())
            continue
        for value in members:
            label = value.get("label") or value["name"]
            if value["type"] == "histogram":
                positions = value["x"] if _numbers(value["x"]) else list(range(len(value["x"])))
                width = value.get("width") or 0.8
                axes.bar(positions, value["y"], width=width, label=label)
                if not _numbers(value["x"]):
                    axes.set_xticks(positions, [str(x) for x in value["x"]], rotation=45, ha="right")
                    bottom = 0.28  # room for the slanted labels and the axis label under them
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
        figure.subplots_adjust(left=0.15, right=0.97, bottom=bottom, top=0.9)  # tight_layout would draw twice
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png")
        pngs.append(buffer.getvalue())
    return pngs
