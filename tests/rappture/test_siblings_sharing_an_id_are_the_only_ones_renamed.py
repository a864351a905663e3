"""Two sibling inputs sharing an id rename only themselves, and say so (trial 67, F11).

A tool.xml whose ``<choice id="material">`` was mistyped ``<choice id="length">`` (a sibling of
``<number id="length">``) registered silently with every argument renamed by position (``length_0, load_1,
length_2, mm_3``), so a call written for the tool (``{"load": ...}``) was refused as an unexpected property.
Rappture tells the two apart by their paths (``input.number(length)``, ``input.choice(length)``); the arguments are
now named by their kind after the id, the others keep their names, and a RegistrationWarning names the id.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nanohubmcp.errors import RegistrationWarning
from nanohubmcp.sources.rappture import load_rappture_tool

TOOL = """<?xml version="1.0"?>
<run>
  <tool><title>Beam</title><command>python @tool/beam.py @driver</command></tool>
  <input>
    <number id="length"><units>m</units><default>1m</default></number>
    <number id="load"><units>N</units><default>100N</default></number>
    <choice id="length">
      <option><about><label>Steel</label></about><value>steel</value></option>
      <option><about><label>Oak</label></about><value>oak</value></option>
      <default>steel</default>
    </choice>
    <boolean id="mm"><default>no</default></boolean>
  </input>
</run>
"""


def test_only_the_clashing_siblings_are_renamed_and_the_id_is_named(tmp_path: Path) -> None:
    (tmp_path / "tool.xml").write_text(TOOL)
    with pytest.warns(RegistrationWarning, match=r"share the id 'length'.*input\.choice\(length\) as length_choice"):
        tool = load_rappture_tool(tmp_path / "tool.xml")
    assert list(tool.schema["properties"]) == ["length_number", "load", "length_choice", "mm"]
    assert [item.path for item in tool.inputs.arguments][::2] == ["input.number(length)", "input.choice(length)"]


SAME_KIND = """<?xml version="1.0"?>
<run>
  <tool><title>Field</title><command>python @tool/field.py @driver</command></tool>
  <input>
    <number id="emax"><about><label>Peak field</label></about><units>V/cm</units><default>1V/cm</default></number>
    <number id="emax"><about><label>Breakdown field</label></about><units>V/cm</units><default>2V/cm</default></number>
    <boolean id="mm"><default>no</default></boolean>
  </input>
</run>
"""


def test_siblings_of_one_kind_sharing_an_id_are_one_argument(tmp_path: Path) -> None:
    """Trial 68, R1: two ``<number id="emax">`` siblings share one Rappture path, which the program reads once;
    they were offered as ``emax_number`` and ``emax_number2`` and a call's first value was silently lost (the
    driver writes a value by its path). The first is the argument; the second is skipped, with a warning."""
    (tmp_path / "tool.xml").write_text(SAME_KIND)
    with pytest.warns(RegistrationWarning, match=r"share the path input\.number\(emax\).*'Breakdown field'"):
        tool = load_rappture_tool(tmp_path / "tool.xml")
    assert list(tool.schema["properties"]) == ["emax", "mm"]
    assert [(s.path, s.label) for s in tool.inputs.skipped] == [("input.number(emax)", "Breakdown field")]


UNLABELLED_SAME_KIND = SAME_KIND.replace("<about><label>Peak field</label></about>", "")


def test_the_warning_names_each_sibling_by_its_label_or_place(tmp_path: Path) -> None:
    """Trial 68, R2: the warning named the path the siblings share (``input.number(emax)``), which does not
    say which is which: each is named by its place among them, and its label where it has one."""
    (tmp_path / "tool.xml").write_text(SAME_KIND)
    with pytest.warns(RegistrationWarning, match=r"the 1st \('Peak field'\) is offered and the 2nd "
                      r"\('Breakdown field'\) not"):
        load_rappture_tool(tmp_path / "tool.xml")
    (tmp_path / "tool.xml").write_text(UNLABELLED_SAME_KIND)
    with pytest.warns(RegistrationWarning, match=r"the 1st is offered and the 2nd \('Breakdown field'\) not"):
        load_rappture_tool(tmp_path / "tool.xml")


TAKEN = TOOL.replace('<boolean id="mm">', '<boolean id="length_number">')


def test_a_renamed_sibling_takes_a_name_no_other_input_has(tmp_path: Path) -> None:
    """A sibling renamed ``length_number`` beside an input whose id is ``length_number``: both were offered under
    one name, so one of them was no argument at all. The renamed one is ``length_number2``."""
    (tmp_path / "tool.xml").write_text(TAKEN)
    with pytest.warns(RegistrationWarning, match=r"input\.number\(length\) as length_number2"):
        tool = load_rappture_tool(tmp_path / "tool.xml")
    assert list(tool.schema["properties"]) == ["length_number2", "load", "length_choice", "length_number"]
    assert [item.name for item in tool.inputs.arguments] == ["length_number2", "load", "length_choice", "length_number"]
