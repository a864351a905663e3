"""A Sim2L Number or Integer input whose default (``value``) lies outside its own ``min``/``max`` is refused at
registration naming the notebook, the input, the default and the bound, as simtool's own ``Number`` and ``Integer``
refuse it when a notebook's INPUTS are read (``Maximum value is 1000``: nanoHUB cannot run the notebook). It was
served before: a call leaving the input out ran the notebook with a value no client may send.

The real cooling example with one default of its INPUTS cell edited.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sim2l.cooling_variant import COOLING

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationError


def _with_default(folder: Path, declared: str, edited: str) -> Path:
    notebook = json.loads(COOLING.read_text())
    cell = next(c for c in notebook["cells"] if "".join(c["source"]).startswith("%%yaml INPUTS"))
    source = "".join(cell["source"])
    assert declared in source
    cell["source"] = source.replace(declared, edited)
    path = folder / "cooling.ipynb"
    path.write_text(json.dumps(notebook))
    return path


CASES = [
    # (the Sim2L type, the declaration's lines as written, edited, what the refusal says, simtool's words)
    ("Integer", "    max: 1000\n    value: 61", "    max: 1000\n    value: 5000",
     "input 'points': its default (value) 5000 is above its maximum 1000", "Maximum value is 1000"),
    ("Number", "    min: 1\n    max: 100000\n    value: 600", "    min: 1\n    max: 100000\n    value: 0.5",
     "input 'duration': its default (value) 0.5 is below its minimum 1", "Minimum value is 1"),
]


@pytest.mark.parametrize(("kind", "declared", "edited", "said", "simtools"), CASES, ids=["above-max", "below-min"])
def test_a_default_outside_its_range_is_refused_as_simtool_refuses_it(
    tmp_path: Path, kind: str, declared: str, edited: str, said: str, simtools: str
) -> None:
    params = pytest.importorskip("simtool.params")
    bounds = dict(line.strip().split(": ") for line in edited.splitlines())
    with pytest.raises(ValueError, match=simtools):  # what nanoHUB's parse of the INPUTS does
        params.Params.types[kind](**{k: float(v) for k, v in bounds.items()})
    path = _with_default(tmp_path, declared, edited)
    server = MCPServer("ranges")
    with pytest.raises(RegistrationError) as refused:
        server.add_sim2l(str(path))
    assert str(refused.value).startswith(f"{path}: {said}; simtool refuses it"), refused.value
    assert str(refused.value).endswith("make the default a value within min and max"), refused.value
    assert server.core.registry.tools.get("cooling") is None


def test_a_default_on_its_bound_is_served(tmp_path: Path) -> None:
    path = _with_default(tmp_path, "    max: 1000\n    value: 61", "    max: 1000\n    value: 1000")
    server = MCPServer("ranges")
    server.add_sim2l(str(path))
    assert server.core.registry.tools.get("cooling") is not None
