"""Every input element of Rappture's example zoo becomes a JSON Schema (2020-12) property, or is
skipped with a reason; the driver carries each argument's ``current`` value as the program reads it.

The tool (``tools/inputs``, written for these tests) has a loader with two examples, a note, a
separator, numbers with units (limits and default in other units) and without, an integer, a
boolean defaulting to ``on``, a choice with an option lacking a value and a default given as a
label, a multichoice, one-line and multi-line strings, a periodic element returning names, an
image, groups of groups with the same id inside, a phase with an ``enable`` condition and a hidden
input, and a structure with a parameter. Its program echoes every input's ``current`` into the run
file, so the tests read back what the program saw.

Issue 24, "Done when": schemas validate as JSON Schema 2020-12; unit conversion and
wrong-dimension errors.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest

from nanohubmcp import InvalidArguments, MCPServer, RegistrationError
from nanohubmcp.sources.rappture import load_rappture_tool

pytest.importorskip("pint")
pytest.importorskip("periodictable")

TOOLS = Path(__file__).parent / "tools"
TOOL = TOOLS / "inputs" / "tool.xml"


@pytest.fixture(scope="module")
def tool() -> Any:
    return load_rappture_tool(TOOL)


def echoed(tool: Any, arguments: dict[str, Any]) -> dict[str, str]:
    """What the program read for each input, keyed by the input's path (dots and parens as '_')."""
    result = tool.run(arguments, plot=False).to_wire()
    assert not result["isError"], result
    return {key.removeprefix("input_"): value["value"] for key, value in result["structuredContent"]["outputs"].items()}


def test_the_schema_is_valid_2020_12_and_names_every_argument(tool: Any) -> None:
    schema = tool.schema
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["additionalProperties"] is False
    assert "required" not in schema
    assert list(schema["properties"]) == [
        "loader",
        "mass",
        "ratio",
        "steps",
        "verbose",
        "stats",
        "materials",
        "title",
        "deck",
        "dopant",
        "electrons_tau",
        "holes_tau",
        "temperature",
        "anode",
    ]
    jsonschema.validate({"mass": "2nm"}, schema)  # strings are the pint path's to judge


def test_numbers_carry_units_limits_defaults_and_presets_in_the_declared_units(tool: Any) -> None:
    mass = tool.schema["properties"]["mass"]
    assert mass["type"] == ["number", "string"]
    assert (mass["minimum"], mass["maximum"], mass["default"]) == (0.001, 2, 0.01)  # 1g, 2kg, 10g in kg
    assert mass["title"] == "Mass"
    assert mass["description"].startswith("Mass of the particle. Units: kg.")
    ratio = tool.schema["properties"]["ratio"]
    assert ratio["type"] == "number"  # no units: numbers only
    assert (ratio["minimum"], ratio["maximum"], ratio["default"]) == (0, 1, 0.5)
    steps = tool.schema["properties"]["steps"]
    assert (steps["type"], steps["minimum"], steps["maximum"], steps["default"]) == ("integer", 1, 100, 10)


def test_booleans_choices_strings_loaders_and_elements_take_their_documented_forms(tool: Any) -> None:
    props = tool.schema["properties"]
    assert props["verbose"]["default"] is True  # <default>on</default>
    for word in (True, False, 1, 0, "yes", "no", "on", "off", "1", "0", "YES", "Off"):
        jsonschema.validate(word, props["verbose"])
    assert props["stats"]["enum"] == ["bte", "Fermi", "Boltzmann"]  # values, then labels not already there
    assert props["stats"]["default"] == "Fermi"  # the option without a value is its label
    assert "bte (Boltzmann): Classical limit" in props["stats"]["description"]
    assert props["materials"]["type"] == "array"
    assert props["materials"]["uniqueItems"] is True
    assert props["materials"]["default"] == ["Si", "GaAs"]  # labels in the default became values
    assert props["deck"]["default"] == "line one\nline two"
    assert "Multi-line text" in props["deck"]["description"]
    assert "Hint: One command per line" in props["deck"]["description"]
    assert props["loader"]["enum"] == ["Cold sample", "Hot sample"]
    assert props["loader"]["default"] == "Cold sample"
    dopant = props["dopant"]["enum"]
    assert "As" in dopant
    assert "Si" in dopant
    assert "La" not in dopant  # lanthanoids are inactive
    assert "U" not in dopant  # actinoids too


def test_nesting_is_flattened_to_unique_names_with_the_groups_and_enable_conditions_described(tool: Any) -> None:
    props = tool.schema["properties"]
    assert "In: tabs > Electrons." in props["electrons_tau"]["description"]
    assert "Used only when verbose." in props["holes_tau"]["description"]  # the group's condition
    assert 'Used only when stats == "bte".' in props["temperature"]["description"]
    assert "In: Second page." in props["temperature"]["description"]
    assert "In: Structure." in props["anode"]["description"]


def test_image_note_and_hidden_inputs_are_skipped_with_a_reason(tool: Any) -> None:
    skipped = {s.kind: s for s in tool.inputs.skipped}
    assert set(skipped) == {"note", "image", "integer"}
    assert "not a value the model can give" in skipped["image"].reason
    assert "text for the reader" in skipped["note"].reason
    assert skipped["integer"].path == "input.phase(second).integer(secret)"
    assert "<enable>no</enable>" in skipped["integer"].reason
    assert "Not an argument: Sketch (image)" in tool.description


def test_defaults_and_the_default_example_reach_the_program(tool: Any) -> None:
    seen = echoed(tool, {})
    assert seen["loader"] == "Cold sample"
    assert seen["phase_second_number_temperature"] == "77K"  # from the example file
    assert seen["string_title"] == "cold run"
    assert seen["number_mass"] == "10g"  # a default as written
    assert seen["choice_stats"] == "Fermi"
    assert seen["multichoice_materials"] == "Si,GaAs"
    assert seen["periodicelement_dopant"] == "Arsenic"  # <returnvalue>name</returnvalue>
    assert seen["phase_second_integer_secret"] == "7"  # hidden: its default
    assert seen["structure_current_parameters_number_anode"] == "0V"


def test_an_examples_values_reach_the_program_in_the_form_their_inputs_ask_for(tool: Any) -> None:
    # A trial finding: an element set by a loader example reached the program as written ("Ge"),
    # not in its <returnvalue> form as defaults and arguments do.
    seen = echoed(tool, {"loader": "Hot sample"})
    assert seen["periodicelement_dopant"] == "Germanium"
    assert seen["integer_steps"] == "50"


def test_given_arguments_reach_the_program_converted_to_the_declared_units(tool: Any) -> None:
    seen = echoed(
        tool,
        {
            "loader": "Hot sample",
            "mass": "500g",
            "holes_tau": "3us",
            "verbose": "off",
            "stats": "Boltzmann",
            "materials": ["Germanium", "Si"],
            "dopant": "si",
            "steps": 12,
            "title": "given wins",
        },
    )
    assert seen["number_mass"] == "0.5kg"
    assert seen["group_tabs_group_holes_number_tau"] == "3e-06s"
    assert seen["group_tabs_group_electrons_number_tau"] == "1us"
    assert seen["boolean_verbose"] == "no"
    assert seen["choice_stats"] == "bte"  # a label given, the value written
    assert seen["multichoice_materials"] == "Ge,Si"
    assert seen["periodicelement_dopant"] == "Silicon"
    assert seen["integer_steps"] == "12"  # given beats the example's 50
    assert seen["phase_second_number_temperature"] == "600K"  # the hot example
    assert seen["string_title"] == "given wins"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"mass": "3eV"}, "'eV' is not a unit of the same kind as 'kg'; units that fit: kg, g"),
        ({"mass": "3 blorgs"}, "mass (Mass): unknown unit 'blorgs'; units that fit: kg"),
        # text pint would read as Python-like arithmetic is refused before pint reads it, saying what is accepted
        ({"mass": "3 __import__('os')"}, "mass (Mass): \"3 __import__('os')\" holds '_', which units cannot hold; "
                                         "write a number and then units: unit names joined by *, / or spaces"),
        ({"mass": "(3 kg"}, "\"(3 kg\" does not start with a number; write a number and then units"),
        ({"mass": "5kg"}, "'5kg' is 5kg, above the maximum 2kg"),
        ({"mass": "1" * 100_000 + "g"}, "is 100001 characters long; a number with units is at most 256 characters"),
        ({"mass": 0.0001}, "below the minimum 1g"),
        ({"ratio": "2m"}, "has units, but this number takes none"),
        ({"stats": "quantum"}, "'quantum' is not one of its options (bte, Fermi)"),
        ({"verbose": "maybe"}, "'maybe' is not a yes-or-no value: give true or false"),
        ({"dopant": "Xx"}, "'Xx' is not a chemical element symbol"),
        # characters XML cannot hold (trial5 F2: they reached driver.xml and the program crashed reading it)
        ({"title": "a\x00b"}, "title (Title): contains the character U+0000 (at 1), which an XML file cannot hold"),
        ({"title": "\x1b[1mbold"}, "contains the character U+001B (at 0)"),
    ],
)
def test_values_that_do_not_fit_are_invalid_arguments_naming_the_input(
    tool: Any, arguments: dict[str, Any], message: str
) -> None:
    with pytest.raises(InvalidArguments) as caught:
        tool.run(arguments)
    assert "Invalid arguments for tool 'every_input'" in str(caught.value)
    assert message in str(caught.value)


def test_the_server_registers_it_as_a_tool_with_its_schema() -> None:
    server = MCPServer("inputs")
    record = server.add_rappture_tool(TOOL.parent)  # a directory holding tool.xml
    assert record.name == "every_input"
    assert record.title == "Every input"
    assert record.input_schema["properties"]["mass"]["default"] == 0.01
    assert not record.background  # a 20 s limit fits in a proxy's wait
    renamed = server.add_rappture_tool(TOOL, name="inputs2", async_=True)
    assert renamed.name == "inputs2"
    assert renamed.background


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "<run><tool><command>true</command></tool><input><number id='x'><units>K</units>"
            "<default>3eV</default></number></input></run>",
            "input input.number(x): its default '3eV'",
        ),
        ("<run><input/></run>", "not a Rappture tool.xml"),
        ("<run><tool><title>t</title></tool></run>", "has no <command>"),
        ("<run><tool>", "not valid XML"),
    ],
)
def test_a_file_that_is_not_a_usable_tool_is_a_registration_error(tmp_path: Path, text: str, message: str) -> None:
    file = tmp_path / "tool.xml"
    file.write_text(text)
    with pytest.raises(RegistrationError, match="Rappture tool") as caught:
        load_rappture_tool(file)
    assert message in str(caught.value)
    with pytest.raises(RegistrationError, match="no such file"):
        load_rappture_tool(tmp_path / "missing.xml")
