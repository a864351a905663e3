"""A PIL image as one PNG can hold, each of Pillow's modes shown as a scientist reading it expects.

===================================  =====================================================================
mode                                 PNG
===================================  =====================================================================
``1 L LA P RGB RGBA I;16 I;16B``     as it is (16-bit grey stays 16-bit)
``F`` (float), ``I`` (32-bit int)    8-bit grey, scaled from the smallest to the largest finite value
                                     (matplotlib's ``imshow`` default); NaN and infinite pixels are
                                     transparent; an image of one value is black. What
                                     ``Image.fromarray`` makes of float32 and int32 data: Pillow's own
                                     conversion clips it to 0..255 (a float ramp 0..1 is all black)
``I;16L I;16N``                      16-bit grey (the same pixels, read in their byte order)
``La``                               ``LA`` (alpha un-premultiplied)
any other (``CMYK``, ``PA``, ...)    ``RGBA``
===================================  =====================================================================

An image with no pixel (a width or height of 0), one of a mode Pillow cannot convert, and an ``F``/``I``
image without numpy (which the scaling uses) are a :class:`~nanohubmcp.errors.ToolError` naming the
image's mode and size and what to return instead.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL.Image import Image as PILImage

    from ....errors import ToolError

__all__ = ["AS_IT_IS", "SCALED", "for_png"]

AS_IT_IS = frozenset({"1", "L", "LA", "P", "RGB", "RGBA", "I;16", "I;16B"})
"""The modes written to PNG unchanged."""
SCALED = frozenset({"F", "I"})
"""The modes shown as 8-bit grey scaled over their value range."""
_SIXTEEN_BIT = {"I;16L": "little", "I;16N": sys.byteorder}


def for_png(image: PILImage) -> PILImage:
    """``image`` in a mode PNG holds (the table above); ``image`` itself when its mode is one.

    Raises:
        ToolError: it has no pixel, its mode converts to none PNG holds, or it is ``F``/``I`` and numpy
            is not installed; the message names the mode, the size and what to return instead.
    """
    width, height = image.size
    if width == 0 or height == 0:
        raise _unshown(image, "it has no pixels (PNG holds no empty picture); return an image of at least "
                       "1x1 pixels, or None")
    mode = image.mode
    if mode in AS_IT_IS:
        return image
    if mode in SCALED:
        return _scaled(image)
    if mode in _SIXTEEN_BIT:  # (Pillow's convert("I;16") of these clips at 255)
        from PIL import Image

        wide = "I;16" if _SIXTEEN_BIT[mode] == "little" else "I;16B"
        return Image.frombytes(wide, image.size, image.tobytes())
    try:
        return image.convert("LA" if mode == "La" else "RGBA")
    except ValueError as exc:  # a conversion Pillow has not
        raise _unshown(image, f"Pillow converts it to no mode PNG holds ({exc}); return image.convert('RGB') "
                       "of it (or 'RGBA', 'L')") from None


def _scaled(image: PILImage) -> PILImage:
    """An ``F`` or ``I`` image as 8-bit grey from its smallest finite value (0) to its largest (255),
    its NaN and infinite pixels transparent (``LA``)."""
    try:
        import numpy as np
    except ImportError:
        raise _unshown(image, "scaling its values to 8-bit grey needs numpy, which is not installed; "
                       "install numpy, or return image.convert('L') of values already in 0..255") from None
    from PIL import Image

    values = np.asarray(image, dtype=np.float64)
    finite = np.isfinite(values)
    grey = np.zeros(values.shape, dtype=np.uint8)
    if finite.any():
        low, high = values[finite].min(), values[finite].max()
        if high > low:
            grey[finite] = np.rint((values[finite] - low) * (255.0 / (high - low)))
    if finite.all():
        return Image.fromarray(grey)
    return Image.fromarray(np.dstack([grey, np.where(finite, 255, 0).astype(np.uint8)]))


def _unshown(image: PILImage, why: str) -> ToolError:
    from ....errors import ToolError

    width, height = image.size
    return ToolError(f"a PIL image of mode {image.mode!r} and size {width}x{height} cannot be shown: {why}")
