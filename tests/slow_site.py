"""A ``sys.path`` entry whose installed distributions take seconds to read into provenance's table of import names
(``importlib.metadata.packages_distributions()`` and the look at each file of the distributions sharing a name): a
real slow read, as on a hub's NFS home, for the tests of what must not wait for it."""

from __future__ import annotations

import os
from pathlib import Path

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
