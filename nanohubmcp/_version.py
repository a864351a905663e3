"""The one place the package version lives (hatch reads it at build time)."""

from __future__ import annotations

__version__ = "1.0.0.dev0"
