"""The example cooling Sim2L (``examples/sim2l/cooling``) with code of a test's own run first in its
computing cell: a notebook that sleeps, raises or starts a process for some inputs."""

from __future__ import annotations

import json
from pathlib import Path

COOLING = Path(__file__).resolve().parents[2] / "examples" / "sim2l" / "cooling" / "cooling.ipynb"


def cooling_variant(folder: Path, code: str, name: str = "cooling.ipynb") -> Path:
    """The cooling Sim2L written to ``folder / name``, its computing cell (``np.linspace``: cell 8 once
    papermill has injected the parameters) starting with ``code`` (whole lines, the inputs defined)."""
    notebook = json.loads(COOLING.read_text())
    computing = next(c for c in notebook["cells"] if "np.linspace" in "".join(c["source"]))
    computing["source"] = code + "".join(computing["source"])
    path = folder / name
    path.write_text(json.dumps(notebook))
    return path
