"""Loaded by a served process that ``bench/rappture_gc.py`` starts (on its PYTHONPATH): times the cyclic collector's
full passes (when: ``time.monotonic``, system-wide), counts the objects each walks, and writes them, with the frozen
count, at exit (``BENCH_GC_PROBE``)."""

from __future__ import annotations

import atexit
import gc
import json
import os
import sys
import threading
import time

_OUT = os.environ.get("BENCH_GC_PROBE")
_full: list[dict[str, object]] = []
_began: list[float] = [0.0]
_walked: list[int] = [0]
_passes = {0: 0, 1: 0, 2: 0}


def _timed(phase: str, info: dict[str, int]) -> None:
    generation = info["generation"]
    if phase == "start":
        _passes[generation] += 1
        if generation == 2:  # (counted before the clock starts: the counting walks them too)
            _walked[0] = sum(len(gc.get_objects(g)) for g in range(3))
        _began[0] = time.perf_counter()
    elif generation == 2:
        _full.append({"ms": round((time.perf_counter() - _began[0]) * 1e3, 2), "walked": _walked[0],
                      "at": time.monotonic(),
                      "thread": threading.current_thread().name})


def _report() -> None:
    assert _OUT
    with open(_OUT, "w") as out:
        json.dump({"full": _full, "passes": _passes, "frozen": gc.get_freeze_count(),
                   "tracked": len(gc.get_objects()), "modules": len(sys.modules),
                   "matplotlib": "matplotlib.figure" in sys.modules, "pint": "pint" in sys.modules}, out)


if _OUT:
    gc.callbacks.append(_timed)
    atexit.register(_report)
