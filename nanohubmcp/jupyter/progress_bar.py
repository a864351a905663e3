"""``ctx.report_progress`` drawn as a live bar in the cell that defined the tool.

The server publishes ``call_progress`` on the thread that reported it, and that thread runs
the call in its defining cell's context (:class:`.output.CellOutput`), so a ``display`` made
there lands under that cell. Each call gets one display: an ``ipywidgets.FloatProgress``
when ipywidgets is installed (the front end shows it live), otherwise an HTML ``<progress>``
bar with a text twin, redrawn in place with ``update_display``. The display is made at the
call's first report and left showing the last state when the call finishes. A batch run
(``jupyter nbconvert --execute``, ``jupyter execute``, papermill: :mod:`nanohubmcp.sources.batch_run`) gets no
bar: nothing draws it there, and the notebook saved a widget as it was when shown (``FloatProgress(value=0.0)``).

tqdm reports are not drawn: a tqdm bar already draws itself in the cell.
"""

from __future__ import annotations

import html
import importlib.util
import threading
import uuid
from typing import Any

from ..sources.batch_run import batch_run

__all__ = ["CellProgressBars", "text_bar"]

WIDTH = 30
"""Characters in the text bar."""
KEPT = 64
"""Bars of calls in flight remembered at once; the oldest is forgotten beyond that."""


def text_bar(progress: float, total: float | None, message: str | None) -> str:
    """One line: ``[#######.......] 7/20 message`` (no bar when the total is unknown)."""
    done = f"{progress:g}/{total:g}" if total else f"{progress:g}"
    line = done
    if total:
        filled = round(WIDTH * min(max(progress / total, 0.0), 1.0))
        line = f"[{'#' * filled}{'.' * (WIDTH - filled)}] {done}"
    return f"{line} {message}" if message else line


def _has_ipywidgets() -> bool:
    """ipywidgets can be imported (without importing it; False when imports of it are blocked)."""
    try:
        return importlib.util.find_spec("ipywidgets") is not None
    except (ImportError, ValueError):  # sys.modules["ipywidgets"] = None blocks it
        return False


class _Shown:
    """One call's bar: a widget, or a display id to update."""

    __slots__ = ("display_id", "label", "widget")

    def __init__(self) -> None:
        self.widget: Any = None
        self.label: Any = None
        self.display_id: str | None = None


class CellProgressBars:
    """Subscriber of ``call_progress`` / ``call_finished``: draws and forgets the bars."""

    def __init__(self) -> None:
        self._shown: dict[int, _Shown] = {}
        self._lock = threading.Lock()
        self._widgets = _has_ipywidgets()

    def on_event(self, event: str, data: dict[str, Any]) -> None:
        """The event bus callback."""
        call_id = data.get("call_id")
        if not isinstance(call_id, int):
            return
        if event == "call_finished":
            with self._lock:
                self._shown.pop(call_id, None)
            return
        if event != "call_progress" or data.get("source") != "context" or batch_run():
            return
        with self._lock:
            shown = self._shown.get(call_id)
            first = shown is None
            if shown is None:
                shown = self._shown[call_id] = _Shown()
                while len(self._shown) > KEPT:
                    self._shown.pop(next(iter(self._shown)))
        self._draw(shown, first, data.get("progress", 0.0), data.get("total"), data.get("message"))

    def _draw(self, shown: _Shown, first: bool, progress: float, total: float | None, message: str | None) -> None:
        from IPython.display import display, update_display

        line = text_bar(progress, total, message)
        if self._widgets:
            if first:
                import ipywidgets

                shown.widget = ipywidgets.FloatProgress(min=0.0, max=float(total or 1.0))
                shown.label = ipywidgets.Label()
                display(ipywidgets.HBox([shown.widget, shown.label]))
            if total:
                shown.widget.max = float(total)
            shown.widget.value = float(progress)
            shown.label.value = line
            return
        meter = f"<progress value='{progress:g}' max='{total:g}'></progress>" if total else "<progress></progress>"
        bundle = {
            "text/plain": line,
            "text/html": meter + f" <code>{html.escape(line)}</code>",
        }
        if first:
            shown.display_id = uuid.uuid4().hex
            display(bundle, raw=True, display_id=shown.display_id)
        else:
            update_display(bundle, raw=True, display_id=shown.display_id)
