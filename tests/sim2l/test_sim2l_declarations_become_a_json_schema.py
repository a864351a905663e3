"""Reading a Sim2L notebook (no kernel): every declared type becomes a JSON Schema 2020-12
property with its description (also from the older ``desc`` key), units, limits, options and
default; what is not a Sim2L is refused at registration with a message naming the notebook and
what is missing."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationError
from nanohubmcp.sources.sim2l.notebook import TYPES, read_sim2l
from nanohubmcp.sources.sim2l.schema import input_schema

NOTEBOOK = Path(__file__).parent / "data" / "allkinds" / "allkinds.ipynb"


def test_every_sim2l_type_has_a_property_that_validates_what_simtool_accepts() -> None:
    spec = read_sim2l(NOTEBOOK)
    assert (spec.name, spec.revision) == ("allkinds", "r3")
    assert spec.description.startswith("Every Sim2L input type in")
    assert {item.type for item in spec.inputs.values()} == set(TYPES)
    schema = input_schema(spec)
    jsonschema.Draft202012Validator.check_schema(schema)
    check = jsonschema.Draft202012Validator(schema)
    props = schema["properties"]
    assert props["count"]["minimum"] == 1
    assert props["count"]["maximum"] == 10
    assert props["tag"]["maxLength"] == 255
    assert props["material"]["default"] == "Si"
    assert props["label"]["description"].startswith("A word for the banner")  # from desc
    assert props["element"]["default"] == "Si"
    assert "atomic_weight" in props["element"]["description"]
    assert "default" not in props["notes"]
    assert schema["additionalProperties"] is False
    good = {
        "flag": True,
        "count": 10,
        "temperature": "77 K",
        "label": "a",
        "tag": "b",
        "material": "Ge",
        "steps": [1, "x"],
        "settings": {"k": [1]},
        "samples": [[1.0, 2.0], [3.0, 4.0]],
        "element": "Ga",
        "notes": "text",
        "picture_in": {"name": "a.png", "base64": "AAAA"},
    }
    assert list(check.iter_errors(good)) == []
    assert list(check.iter_errors({"notes": {"name": "data.bin", "base64": "AAAA"}})) == []
    for bad in (
        {"count": 11},
        {"count": 1.5},
        {"material": "Sn"},
        {"tag": "t" * 256},
        {"flag": "yes"},
        {"temperature": -1},
        {"settings": [1]},
        {"samples": ["a", {}]},
        {"picture_in": "text"},
        {"unknown": 1},
    ):
        assert list(check.iter_errors(bad)), bad


def _write(path: Path, cells: list[str], tags: dict[int, str] | None = None) -> Path:
    notebook = new_notebook()
    notebook.cells = [new_code_cell(source) for source in cells]
    for index, tag in (tags or {}).items():
        notebook.cells[index].metadata["tags"] = [tag]
    nbformat.write(notebook, path)
    return path


def test_what_is_not_a_sim2l_is_refused_with_what_is_missing(tmp_path: Path) -> None:
    server = MCPServer("not-sim2ls")
    inputs = "%%yaml INPUTS\nx:\n    type: Number\n    value: 1"
    outputs = "%%yaml OUTPUTS\ny:\n    type: Number"
    cases = [
        (_write(tmp_path / "no_outputs.ipynb", [inputs, "x = 1"], {1: "parameters"}), "no %%yaml OUTPUTS cell"),
        (_write(tmp_path / "no_parameters.ipynb", [inputs, outputs, "x = 1"]), "tagged 'parameters'"),
        (
            _write(
                tmp_path / "bad_type.ipynb",
                ["%%yaml INPUTS\nx:\n    type: Quaternion", outputs, "x = 1"],
                {2: "parameters"},
            ),
            "type 'Quaternion' is not a Sim2L type",
        ),
        (
            _write(tmp_path / "bad_yaml.ipynb", ["%%yaml INPUTS\nx: [", outputs, "x = 1"], {2: "parameters"}),
            "is not YAML",
        ),
        (
            _write(
                tmp_path / "no_options.ipynb",
                ["%%yaml INPUTS\nc:\n    type: Choice", outputs, "c = 1"],
                {2: "parameters"},
            ),
            "a Choice needs 'options'",
        ),
        (tmp_path / "missing.ipynb", "cannot read the Sim2L notebook"),
    ]
    (tmp_path / "plain.txt").write_text("not json")
    cases.append((tmp_path / "plain.txt", "not a Jupyter notebook"))
    for path, expected in cases:
        with pytest.raises(RegistrationError) as refused:
            server.add_sim2l(str(path))
        assert expected in str(refused.value), (path.name, str(refused.value))
        assert path.name in str(refused.value)
    assert server.core.registry.tools.get("no_outputs") is None


def test_a_published_sim2l_takes_its_revision_from_its_apps_path(tmp_path: Path) -> None:
    folder = tmp_path / "apps" / "heat" / "r12" / "simtool"
    folder.mkdir(parents=True)
    path = _write(folder / "heat.ipynb", ["%%yaml INPUTS\n", "%%yaml OUTPUTS\n", "pass"], {2: "parameters"})
    spec = read_sim2l(path)
    assert (spec.name, spec.revision, spec.inputs, spec.outputs) == ("heat", "r12", {}, {})


def test_without_the_sim2l_libraries_registration_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "simtool", None)  # as if it were not installed
    with pytest.raises(RegistrationError, match=r"serving a Sim2L needs simtool: pip install 'nanohub-mcp\[sim2l\]'"):
        MCPServer("no-libraries").add_sim2l(str(NOTEBOOK))


def test_input_files_of_one_name_do_not_overwrite_each_other() -> None:
    import base64
    import io

    import PIL.Image

    from nanohubmcp.sources.sim2l.values import prepare

    picture = io.BytesIO()
    PIL.Image.new("RGB", (2, 2)).save(picture, format="PNG")
    prepared = prepare(
        read_sim2l(NOTEBOOK),
        {
            "notes": {"name": "x.png", "base64": base64.b64encode(b"text").decode()},
            "picture_in": {"name": "x.png", "base64": base64.b64encode(picture.getvalue()).decode()},
        },
    )
    assert prepared.files == {"x.png": b"text", "picture_in-x.png": picture.getvalue()}
    assert prepared.parameters["notes"] == "file://.notebookInputFiles/x.png"
    assert prepared.parameters["picture_in"] == "file://.notebookInputFiles/picture_in-x.png"
    assert prepared.identity["notes"]["sha256"] != prepared.identity["picture_in"]["sha256"]


def test_a_directory_holding_one_notebook_names_it(tmp_path: Path) -> None:
    """As ``rappture`` takes a directory holding tool.xml (a fresh-user trial: ``nanohubmcp sim2l DIR``
    said "cannot read the Sim2L notebook (Is a directory)")."""
    flat = tmp_path / "flat"
    flat.mkdir()
    (flat / "allkinds.ipynb").write_bytes(NOTEBOOK.read_bytes())
    (flat / ".hidden.ipynb").write_text("{}")  # an editor's or a checkpoint's copy: not a choice
    assert read_sim2l(flat).path == str(flat / "allkinds.ipynb")
    installed = tmp_path / "apps" / "allkinds" / "r3"
    (installed / "simtool").mkdir(parents=True)
    (installed / "simtool" / "allkinds.ipynb").write_bytes(NOTEBOOK.read_bytes())
    assert read_sim2l(installed).path == str(installed / "simtool" / "allkinds.ipynb")
    (flat / "other.ipynb").write_bytes(NOTEBOOK.read_bytes())
    with pytest.raises(RegistrationError, match=r"holds 2 notebooks \(allkinds.ipynb, other.ipynb\): give the Sim2L's"):
        read_sim2l(flat)
    with pytest.raises(RegistrationError, match="is a directory without a notebook"):
        read_sim2l(tmp_path / "apps")


def test_a_limit_yaml_reads_as_text_is_the_number_simtool_reads(tmp_path: Path) -> None:
    """``max: 1e9`` is the string "1e9" to PyYAML (YAML 1.1), which simtool reads as 1e9: the schema's ``maximum``
    says so (trial67 F6: it was missing, and only the description named it); a limit with units stays a note."""
    params = pytest.importorskip("simtool.params")
    inputs = ("%%yaml INPUTS\nhalf_life:\n    type: Number\n    units: s\n    min: 0.001\n    max: 1e9\n"
              "    value: 60\ncount:\n    type: Integer\n    min: -2e1\n    max: 1E3\n    value: 3\n"
              "width:\n    type: Number\n    units: nm\n    max: 1 um\n    value: 5")
    path = _write(tmp_path / "decay.ipynb", [inputs, "%%yaml OUTPUTS\ny:\n    type: Number", "x = 1"],
                  {2: "parameters"})
    spec = read_sim2l(path)
    props = input_schema(spec)["properties"]
    simtool = {name: getattr(params, item.type)(**item.simtool_fields()) for name, item in spec.inputs.items()}
    assert props["half_life"]["maximum"] == simtool["half_life"].max == 1e9
    assert "Maximum" not in props["half_life"]["description"]
    assert (props["count"]["minimum"], props["count"]["maximum"]) == (-20, 1000)
    assert (simtool["count"].min, simtool["count"].max) == (-20, 1000)
    assert "maximum" not in props["width"]
    assert "Maximum: 1 um." in props["width"]["description"]
