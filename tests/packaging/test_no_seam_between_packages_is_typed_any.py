"""Issue 22: no parameter at a seam between the package's sub-packages is typed ``Any``, and at
most 5 % of all parameters are (``bench/any_params.py`` counts them from the source)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_seams_are_typed_and_any_stays_rare() -> None:
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "any_params.py"), "--seams"],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    overall = re.search(r"parameters: (\d+), typed Any: (\d+)", out)
    seams = re.search(r"at package seams: (\d+), typed Any: (\d+)", out)
    assert overall, out
    assert seams, out
    total, typed_any = int(overall[1]), int(overall[2])
    assert typed_any <= 0.05 * total, out
    assert int(seams[2]) == 0, "type these seam parameters (a Protocol, a union, object):\n" + out
