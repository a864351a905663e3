"""``Rappture.Utils``: the progress line a tool prints for its runner."""

from __future__ import annotations

import sys

__all__ = ["progress"]


def progress(percent: float, message: str = "") -> None:
    """Print ``=RAPPTURE-PROGRESS=>percent message`` (the runner reports it as progress)."""
    sys.stdout.write(f"=RAPPTURE-PROGRESS=>{int(percent)} {message}\n")
    sys.stdout.flush()
