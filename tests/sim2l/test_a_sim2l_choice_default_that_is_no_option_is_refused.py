"""A Sim2L Choice whose declared default (``value``) is none of its options, or not a string, is refused at
registration, naming the notebook, the input, its default and its options: simtool's own ``Choice`` refuses that
declaration (its parse of the INPUTS raises ``ValueError``), so nanoHUB cannot run such a notebook.

rapfix's report: the default was dropped from the input schema silently, and a call leaving the input out was
refused as if the client had sent the bad value. The real cooling example with a Choice added to its INPUTS cell.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from sim2l.cooling_variant import with_choice

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationError
from nanohubmcp.sources.sim2l.notebook import read_sim2l

REFUSED = {
    "    options: [euler, exact]\n    value: rk4": (
        "input 'method': its default (value) 'rk4' is not one of its options; its options are 'euler', 'exact'. "
        "simtool's Choice refuses it"
    ),
    "    options: ['1', '2']\n    value: 1": (
        "input 'method': its default (value) 1 is not a string (a Choice's value is text); its options are '1', '2'. "
        "simtool's Choice refuses it"
    ),
}


@pytest.mark.parametrize("choice", list(REFUSED), ids=["no-option", "not-a-string"])
def test_a_default_simtool_refuses_is_refused_at_registration(tmp_path: Path, choice: str) -> None:
    params = pytest.importorskip("simtool.params")
    path = with_choice(tmp_path, choice)
    # simtool itself refuses the declaration: what nanoHUB's run would do with it
    cell = next(c for c in json.loads(path.read_text())["cells"] if "".join(c["source"]).startswith("%%yaml INPUTS"))
    method = yaml.safe_load("".join(cell["source"]).split("\n", 1)[1])["method"]
    with pytest.raises(ValueError, match=r"is not (a valid option|a string)"):
        params.Params.types["Choice"](**method)
    server = MCPServer("choices")
    with pytest.raises(RegistrationError) as refused:
        server.add_sim2l(str(path))
    said = str(refused.value)
    assert str(path) in said, said
    assert REFUSED[choice] in said, said
    assert said.endswith("make the default one of the options"), said
    assert server.core.registry.tools.get("cooling") is None


def test_a_default_among_the_options_is_the_schemas_default(tmp_path: Path) -> None:
    pytest.importorskip("simtool")
    path = with_choice(tmp_path, "    options: [euler, exact]\n    value: exact")
    server = MCPServer("choices")
    server.add_sim2l(str(path))
    tool = server.core.registry.tools.get("cooling")
    assert tool is not None
    assert tool.input_schema["properties"]["method"] == {
        "title": "method", "type": "string", "enum": ["euler", "exact"], "default": "exact"}
    left_out = with_choice(tmp_path, "    options: [euler, exact]")
    assert read_sim2l(str(left_out)).inputs["method"].value is None  # no default: none to check
    quoted = with_choice(tmp_path, "    options: ['yes', 'no']")  # quoted: strings (unquoted, YAML's booleans)
    assert read_sim2l(str(quoted)).inputs["method"].options == ["yes", "no"]
