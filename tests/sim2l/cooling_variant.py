"""The example cooling Sim2L (``examples/sim2l/cooling``) with code of a test's own run first in its
computing cell: a notebook that sleeps, raises or starts a process for some inputs."""

from __future__ import annotations

import json
from pathlib import Path

COOLING = Path(__file__).resolve().parents[2] / "examples" / "sim2l" / "cooling" / "cooling.ipynb"
SIMTOOL = "from simtool import DB\n"


def cooling_variant(folder: Path, code: str, name: str = "cooling.ipynb", *, simtool_late: bool = False) -> Path:
    """The cooling Sim2L written to ``folder / name``, its computing cell (``np.linspace``: cell 8 once
    papermill has injected the parameters) starting with ``code`` (whole lines, the inputs defined).

    ``simtool_late``: simtool's import (``from simtool import DB``, 3-6 s of the imports cell 3 on a loaded
    machine; numpy's and PIL's take 0.2 s) moved from cell 3 to the computing cell, after ``code``. A run
    that stops in ``code`` (a sleep, a raise) never imports simtool, so a short ``cell_timeout`` or
    ``tool_timeout`` bounds only the cheap cells; a run that goes on imports it and saves its outputs as before.
    The cells and their numbers are unchanged."""
    notebook = json.loads(COOLING.read_text())
    computing = next(c for c in notebook["cells"] if "np.linspace" in "".join(c["source"]))
    late = ""
    if simtool_late:
        imports = next(c for c in notebook["cells"] if SIMTOOL.strip() in "".join(c["source"]))
        source = "".join(imports["source"])
        imports["source"] = source.replace(SIMTOOL.strip(), "").rstrip("\n") + "\n"
        late = SIMTOOL
    computing["source"] = code + late + "".join(computing["source"])
    path = folder / name
    path.write_text(json.dumps(notebook))
    return path


def with_choice(folder: Path, choice: str) -> Path:
    """The cooling Sim2L written to ``folder / "cooling.ipynb"`` with ``method: {type: Choice, <choice>}``
    declared last in its INPUTS cell (``choice``: the declaration's further lines, indented four spaces)."""
    notebook = json.loads(COOLING.read_text())
    cell = next(c for c in notebook["cells"] if "".join(c["source"]).startswith("%%yaml INPUTS"))
    cell["source"] = "".join(cell["source"]).rstrip("\n") + "\n\nmethod:\n    type: Choice\n" + choice + "\n"
    path = folder / "cooling.ipynb"
    path.write_text(json.dumps(notebook))
    return path
