"""``Rappture.result``: write the run file and print its name for the runner."""

from __future__ import annotations

import sys
import time
from typing import Any

__all__ = ["result"]


def result(lib: Any, status: int = 0) -> None:
    """Write ``lib`` (a library with the outputs) to ``run<time>.xml`` in the working directory
    and print ``=RAPPTURE-RUN=>run<time>.xml``; a non-zero ``status`` marks the run failed."""
    lib.put("tool.version.rappture.language", "python")
    lib.put("output.time", time.strftime("%a %b %d %H:%M:%S %Y"))
    lib.put("output.status", "ok" if not status else "failed")
    runfile = f"run{int(time.time() * 1e6)}.xml"
    with open(runfile, "w", encoding="utf-8") as stream:
        stream.write(lib.xml())
    sys.stdout.write(f"=RAPPTURE-RUN=>{runfile}\n")
    sys.stdout.flush()
