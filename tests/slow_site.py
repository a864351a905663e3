"""A ``sys.path`` entry whose installed distributions take seconds to read into provenance's table of import names
(``importlib.metadata.packages_distributions()`` and the look at each file of the distributions sharing a name): a
real slow read, as on a hub's NFS home, for the tests of what must not wait for it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

DISTRIBUTIONS = 1000
FILES_EACH = 300
"""Distributions sharing one import name, and the files each lists: over 5 s of reading here."""


def slow_site(folder: Path) -> str:
    """Make the entry in ``folder``; returns ``PYTHONPATH`` with it last (for a subprocess's environment)."""
    for index in range(DISTRIBUTIONS):
        info = folder / f"slowpkg{index}-1.0.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: slowpkg{index}\nVersion: 1.0\n")
        (info / "RECORD").write_text("".join(f"slowshared/m{index}_{n}.py,,\n" for n in range(FILES_EACH)))
    return os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), str(folder)]))


def answer_on_slow_site(script: str, folder: Path) -> dict[str, Any]:
    """Run ``python -c SCRIPT FOLDER/state`` in a process of its own (the table is read once per process), the slow
    entry (made in ``folder/site``) last on its ``PYTHONPATH``, no token: the JSON object its last line of stdout
    prints. A script that fails (or outlasts 150 s) fails the test with its stderr."""
    path = slow_site(folder / "site")
    done = subprocess.run([sys.executable, "-c", script, str(folder / "state")], capture_output=True, text=True,
                          timeout=150, env={**os.environ, "PYTHONPATH": path, "MCP_TOKEN": ""})
    assert done.returncode == 0, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return answer
