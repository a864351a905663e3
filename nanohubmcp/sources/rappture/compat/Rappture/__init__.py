"""``import Rappture`` for tool programs run off a hub: the compatible subset described in
:mod:`nanohubmcp.sources.rappture.compat`."""

from __future__ import annotations

from . import Units, Utils, encoding
from .library import library
from .pyxml import PyXml
from .result import result

RPENC_Z = 1
RPENC_B64 = 2
RPENC_ZB64 = 3
RPENC_RAW = 8

__all__ = [
    "RPENC_B64",
    "RPENC_RAW",
    "RPENC_Z",
    "RPENC_ZB64",
    "PyXml",
    "Units",
    "Utils",
    "encoding",
    "library",
    "result",
]
