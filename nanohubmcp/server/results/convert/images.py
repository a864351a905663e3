"""matplotlib figures and PIL images as PNG ``image`` blocks.

A ``Figure`` (or the figure of an ``Axes``/``SubFigure``) is drawn with ``savefig(format="png")`` at
the figure's own ``dpi`` unless a ``figure_dpi`` is configured, so the image is ``figsize * dpi``
pixels; the figure is then closed in pyplot (when pyplot manages it), so a long-running server
does not keep every figure it ever returned. A PIL ``Image`` is saved as PNG in a mode PNG holds
(:mod:`.pil_modes`: a float or 32-bit image scaled to 8-bit grey, CMYK converted to RGBA, ...).
"""

from __future__ import annotations

import io
import sys
from typing import TYPE_CHECKING, Any, TypeGuard

from ....protocol.content import ImageContent
from .kinds import library
from .pil_modes import for_png

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from PIL.Image import Image as PILImage


def _figure_of(value: object) -> Any:
    if hasattr(value, "savefig"):
        return value
    figure = getattr(value, "figure", None)
    if figure is not None and hasattr(figure, "savefig"):
        return figure
    get_figure = getattr(value, "get_figure", None)
    return get_figure() if callable(get_figure) else None


def figure_png(figure: Figure, dpi: float | None = None) -> bytes:
    """The PNG bytes of a matplotlib figure, at ``dpi`` (None: the figure's own)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi if dpi is not None else "figure")
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:  # only pyplot keeps figures alive; one it never saw needs no closing
        pyplot.close(figure)
    return buffer.getvalue()


def pil_png(image: PILImage) -> bytes:
    """The PNG bytes of a PIL image, in the mode :func:`.pil_modes.for_png` gives it.

    Raises:
        ToolError: an image PNG cannot show (no pixel, a mode with no PNG form); the message names its
            mode, its size and what to return instead.
    """
    buffer = io.BytesIO()
    for_png(image).save(buffer, format="PNG")
    return buffer.getvalue()


def _is_pil_image(value: object) -> TypeGuard[PILImage]:
    """A PIL image (its library is loaded: the value came from it)."""
    return hasattr(value, "save") and hasattr(value, "mode")


def png_of(value: object, *, figure_dpi: float | None = None) -> bytes | None:
    """PNG bytes of a matplotlib figure/axes or a PIL image; None for anything else."""
    lib = library(value)
    if lib == "matplotlib":
        figure = _figure_of(value)
        return None if figure is None else figure_png(figure, figure_dpi)
    if lib == "PIL" and _is_pil_image(value):
        return pil_png(value)
    return None


def to_block(value: object, *, figure_dpi: float | None = None) -> dict[str, Any] | None:
    """The ``image/png`` block of a figure or image, else None."""
    png = png_of(value, figure_dpi=figure_dpi)
    return None if png is None else ImageContent(png, "image/png").to_wire()
