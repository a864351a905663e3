"""A ``lastModified`` ending in ``Z`` (UTC; the refusal's own example, ``2025-01-12T15:00:58Z``) is taken on
Python 3.10 too, whose ``datetime.fromisoformat`` refuses a ``Z`` (review23 R23-M1). The second test runs
protocol/wire.py (standard library only) under a Python 3.10 found on the machine."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from support import python310

from nanohubmcp.protocol import wire

TAKEN = ["2025-01-12T15:00:58Z", "2025-01-12t15:00:58z", "2025-01-12T15:00:58.250Z", "2025-01-12T15:00:58+00:00",
         "2025-01-12"]  # fmt: skip
REFUSED = ["yesterday", "2025-13-45T00:00:00Z", "Z", "2025-01-12T15:00:58ZZ"]


def test_a_z_time_is_taken_and_a_wrong_one_refused() -> None:
    for text in TAKEN:
        assert wire.check_annotations({"lastModified": text}, "resource 'data://x'") == {"lastModified": text}
    for text in REFUSED:
        with pytest.raises(ValueError, match=r"annotations\.lastModified must be an ISO 8601 text"):
            wire.check_annotations({"lastModified": text}, "resource 'data://x'")


PROBE = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("wire", sys.argv[1])
module = importlib.util.module_from_spec(spec)
sys.modules["wire"] = module
spec.loader.exec_module(module)
for text in sys.argv[2:]:
    try:
        module.check_annotations({"lastModified": text}, "resource 'data://x'")
        print(text, "taken")
    except ValueError:
        print(text, "refused")
"""


def test_a_z_time_is_taken_on_python_310(tmp_path: Path) -> None:
    python = python310()
    if python is None:
        pytest.skip("no Python 3.10 interpreter on this machine")
    done = subprocess.run([python, "-c", PROBE, wire.__file__, *TAKEN, *REFUSED], capture_output=True, text=True,
                          timeout=60, check=False, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    said = dict(line.rsplit(" ", 1) for line in done.stdout.splitlines())
    assert said == {**dict.fromkeys(TAKEN, "taken"), **dict.fromkeys(REFUSED, "refused")}
