"""A Sim2L Choice input whose default is written out as null (``value: null``, or ``value:`` with nothing after
it), or whose options are not all strings (YAML reads ``options: [yes, no]`` as booleans), is refused at
registration naming the notebook, the input and what to write instead, as simtool's own ``Choice`` refuses them:
the null default as it parses the INPUTS (``None is not a string``), the unquoted options at every call (a
string is never one of them; any other value is not a string). Both were served before: the first with no
default, the second advertising ``enum: ["True", "False"]``, values simtool then refused.

The real cooling example with a Choice added to its INPUTS cell.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from sim2l.cooling_variant import with_choice

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationError


def _declared(path: Path) -> dict[str, object]:
    cell = next(c for c in json.loads(path.read_text())["cells"] if "".join(c["source"]).startswith("%%yaml INPUTS"))
    method = yaml.safe_load("".join(cell["source"]).split("\n", 1)[1])["method"]
    assert isinstance(method, dict)
    return method


NULL_DEFAULTS = ["    options: [euler, exact]\n    value: null", "    options: [euler, exact]\n    value:"]


@pytest.mark.parametrize("choice", NULL_DEFAULTS, ids=["null", "empty"])
def test_a_null_default_written_out_is_refused(tmp_path: Path, choice: str) -> None:
    params = pytest.importorskip("simtool.params")
    path = with_choice(tmp_path, choice)
    with pytest.raises(ValueError, match="None is not a string"):  # what nanoHUB's parse of the INPUTS does
        params.Params.types["Choice"](**_declared(path))
    server = MCPServer("choices")
    with pytest.raises(RegistrationError) as refused:
        server.add_sim2l(str(path))
    said = str(refused.value)
    assert said.startswith(f"{path}: input 'method': its default (value) is null"), said
    assert "its options are 'euler', 'exact'" in said, said
    assert said.endswith("make the default one of the options, or leave 'value' out"), said
    assert server.core.registry.tools.get("cooling") is None


UNQUOTED = {
    "    options: [yes, no]": "its options True, False are not strings",
    "    options: [euler, 2]\n    value: euler": "its option 2 is not a string",
}


@pytest.mark.parametrize("choice", list(UNQUOTED), ids=["booleans", "a-number"])
def test_options_that_are_not_strings_are_refused(tmp_path: Path, choice: str) -> None:
    params = pytest.importorskip("simtool.params")
    path = with_choice(tmp_path, choice)
    declared = _declared(path)
    options = declared["options"]
    assert isinstance(options, list)
    # simtool's Choice: no value a call could send chooses such an option, as text or as itself
    for option in (o for o in options if not isinstance(o, str)):
        for sent in (str(option), str(option).lower(), "yes", option):
            with pytest.raises(ValueError, match=r"is not (a valid option|a string)"):
                params.Params.types["Choice"](**{**declared, "value": sent})
    server = MCPServer("choices")
    with pytest.raises(RegistrationError) as refused:
        server.add_sim2l(str(path))
    said = str(refused.value)
    assert said.startswith(f"{path}: input 'method': {UNQUOTED[choice]}"), said
    assert said.endswith("quote each option (options: ['yes', 'no'], not [yes, no])"), said
    assert server.core.registry.tools.get("cooling") is None

