"""A run file's outputs become MCP content, whether the tool runs off-hub (its ``<command>``) or
through a hub's ``rappture -execute`` (here a stand-in written to Rappture's documented headless
behaviour, ``standin/rappture``, found on ``PATH`` as on a hub).

The tool (``tools/outputs``) declares no outputs and writes one of each output element: its run
file's contents are returned anyway. Issue 24: "Outputs from run.xml -> MCP content"; on a hub
"the tool runs as rappture -execute".
"""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer, ToolError
from nanohubmcp.sources.rappture import load_rappture_tool

pytest.importorskip("pint")
pytest.importorskip("matplotlib")

HERE = Path(__file__).parent
OUTPUTS = HERE / "tools" / "outputs" / "tool.xml"
FERMI = HERE / "tools" / "fermi" / "tool.xml"
PNG = b"\x89PNG\r\n\x1a\n"


def check_every_output(result: dict[str, Any]) -> None:
    assert not result["isError"], result
    outputs = result["structuredContent"]["outputs"]
    assert outputs["up"]["x"] == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert outputs["down"]["y"] == [-0.0, -0.25, -0.5, -0.75, -1.0]
    assert outputs["up"]["units"] == {"x": "um", "y": "V"}
    assert outputs["up"]["labels"] == {"x": "Position", "y": "Potential"}
    assert outputs["counts"]["type"] == "histogram"
    assert outputs["counts"]["x"] == ["Tigers", "Bears", "Lions"]
    assert outputs["counts"]["y"] == [5.0, 7.0, 3.0]
    assert outputs["spans"]["width"] == [0.5, 0.5, 1.0]
    assert outputs["levels"]["columns"][1] == {"id": "energy", "label": "Energy", "units": "eV"}
    assert outputs["levels"]["rows"][2] == ["HOMO", 0.45]
    assert outputs["gap"] == {
        "type": "number",
        "label": "Band gap",
        "value": pytest.approx(1.12),
        "units": "eV",
        "text": "1120meV",
    }  # given in meV, read in the declared eV
    assert outputs["iterations"]["value"] == 42
    assert outputs["converged"]["value"] is True
    assert outputs["material"]["value"] == "Si"
    assert outputs["snapshot"] == {"type": "image", "label": "Snapshot", "mimeType": "image/png"}
    assert outputs["density"]["resource"] == "rappture://outputs/output/field/density"
    assert result["structuredContent"]["run"]["status"] == "ok"
    blocks = result["content"]
    images = [base64.b64decode(b["data"]) for b in blocks if b["type"] == "image"]
    assert len(images) == 5  # one plot for the two grouped curves, one per histogram, the table, the snapshot
    assert all(i.startswith(PNG) for i in images)
    texts = [b["text"] for b in blocks if b["type"] == "text"]
    assert "Band gap: 1120meV" in texts[0]
    assert "iteration 42: residual 1e-9" in texts
    resources = {b["resource"]["uri"]: b["resource"] for b in blocks if b["type"] == "resource"}
    field = resources["rappture://outputs/output/field/density"]
    assert field["mimeType"] == "application/xml"
    assert "<values>1 2 3</values>" in field["text"]
    assert "rappture://outputs/output/mesh/grid" in resources


def test_every_output_element_becomes_its_documented_content() -> None:
    check_every_output(load_rappture_tool(OUTPUTS, rappture="").run({}).to_wire())


def test_a_failed_run_status_is_an_error_carrying_the_log() -> None:
    with pytest.raises(ToolError, match="run status 'failed'") as caught:
        load_rappture_tool(OUTPUTS, rappture="").run({"fail": True})
    assert "solver diverged at iteration 3" in str(caught.value)


@pytest.mark.anyio
async def test_a_large_output_reaches_the_client_as_a_resource_link() -> None:
    server = MCPServer("rappture-large", max_inline_bytes=20_000)
    server.add_rappture_tool(OUTPUTS, rappture="")
    with serve(server) as url, anyio.fail_after(60):
        async with mcp_client(url + "mcp") as client:
            result = await client.call_tool("outputs", {"points": 5000})
            assert not result.is_error, result.content
            stub = result.structured_content["outputs"]["up"]
            links = [c for c in result.content if c.type == "resource_link"]
            assert links, [c.type for c in result.content]
            assert stub["resource"] == str(links[0].uri)  # the URI the stub names is the one kept (trial24 F8)
            assert str(links[0].uri).startswith("nanohubmcp://results/")
            summary = " ".join(c.text for c in result.content if c.type == "text")
            assert "rappture://outputs/output/curve/up.json" not in summary
            read = await client.read_resource(stub["resource"])
    assert '"type":"curve"' in read.contents[0].text
    assert len(read.contents[0].text) > 20_000
    assert result.structured_content["outputs"]["gap"]["value"] == pytest.approx(1.12)  # small ones stay


def test_on_a_hub_the_tool_runs_through_rappture_execute(hub_path: Path) -> None:
    tool = load_rappture_tool(OUTPUTS)
    assert tool.rappture == str(hub_path)
    check_every_output(tool.run({}).to_wire())


def test_on_a_hub_a_failing_program_answers_with_rappture_s_log(hub_path: Path) -> None:
    tool = load_rappture_tool(FERMI)
    assert tool.rappture is not None
    with pytest.raises(ToolError) as caught:
        tool.run({"mode": "crash"})
    text = str(caught.value)
    assert "failed (exit status 1)" in text
    assert "non-zero exit code is 3" in text  # rappture's own words
    assert "diverged: the mesh is too coarse" in text  # the program's stderr
    result = tool.run({"temperature": "77K", "points": 11}).to_wire()
    assert result["structuredContent"]["outputs"]["kT"]["value"] == pytest.approx(8.617333262e-5 * 77)


def test_a_tool_in_a_directory_with_a_space_runs(tmp_path: Path) -> None:
    """Found by a fresh-user trial: ``@tool`` was substituted before the command was split, so
    ``python @tool/outputs.py @driver`` in "/…/my tools/outputs" ran "/…/my" (exit 2)."""
    import shutil

    spaced = tmp_path / "my tools" / "outputs"
    shutil.copytree(OUTPUTS.parent, spaced)
    check_every_output(load_rappture_tool(spaced / "tool.xml", rappture="").run({}).to_wire())
    from nanohubmcp.sources.rappture.code import program_files

    # and its provenance record names the program (read from the same split command)
    assert program_files("python @tool/outputs.py @driver", str(spaced)) == [os.path.realpath(spaced / "outputs.py")]


def test_a_run_file_named_but_not_written_is_named_in_the_error(tmp_path: Path) -> None:
    """A fresh-user trial: a program printing ``=RAPPTURE-RUN=>nothere.xml`` without writing it was told
    it "printed no =RAPPTURE-RUN=> line", above a log showing that very line."""
    (tmp_path / "tool.xml").write_text(
        '<?xml version="1.0"?>\n<run><tool><title>liar</title><command>python @tool/liar.py @driver</command>'
        '</tool><input><integer id="n"><default>1</default></integer></input></run>\n')
    (tmp_path / "liar.py").write_text('print("=RAPPTURE-RUN=>nothere.xml")\n')
    with pytest.raises(ToolError) as caught:
        load_rappture_tool(tmp_path / "tool.xml", rappture="").run({})
    text = str(caught.value)
    assert "named the run file nothere.xml (=RAPPTURE-RUN=>), which does not exist" in text
    assert "printed no =RAPPTURE-RUN=>" not in text
    (tmp_path / "liar.py").write_text("print('done')\n")  # and one that names none is told so
    with pytest.raises(ToolError, match="printed no =RAPPTURE-RUN=> line"):
        load_rappture_tool(tmp_path / "tool.xml", rappture="").run({})


def test_a_long_string_output_is_not_repeated_whole_in_the_summary() -> None:
    """A fresh-user trial: a 3 MB ``string`` output was pasted whole into the summary text, a 3 MB answer
    although the value itself went into a resource over ``max_inline_bytes``."""
    import xml.etree.ElementTree as ET

    from nanohubmcp.sources.rappture.outputs import read_outputs

    root = ET.fromstring('<run><output><string id="big"><about><label>big</label></about>'
                         f'<current>{"z" * 300_000}</current></string>'
                         '<string id="small"><current>short text</current></string></output></run>')
    found = read_outputs(root, "t", inline_limit=262_144)
    summary = "\n".join(found.summary)
    assert len(summary) < 1_000, summary[:300]
    assert "(300000 characters in all)" in summary
    assert "small: short text" in summary
    assert found.data["big"]["resource"] == "rappture://t/output/string/big.json"  # the value itself: a resource
