"""A Sim2L notebook served with ``server.add_sim2l`` and called by the official ``mcp`` client over a
real server: papermill runs the notebook (a real kernel), the outputs ``DB(OUTPUTS).save`` recorded
come back as values, an image and resource links; identical inputs are answered from the stored run
(no second papermill run, also after a restart, and as a durable job); inputs simtool refuses are
-32602 naming the input; a notebook that raises is an ``isError`` result naming the cell.

The notebook (``data/allkinds/allkinds.ipynb``) was written for these tests and declares every Sim2L
type. Each papermill run starts a kernel (seconds), so the test makes two runs in all, at once.
"""

from __future__ import annotations

import base64
import functools
import io
import json
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from mcp.shared.exceptions import MCPError
from support import mcp_client, serve

from nanohubmcp import MCPServer

NOTEBOOK = Path(__file__).parent / "data" / "allkinds" / "allkinds.ipynb"


def _png(width: int, height: int) -> str:
    import PIL.Image

    buffer = io.BytesIO()
    PIL.Image.new("RGB", (width, height), color=(0, 90, 200)).save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


ARGUMENTS: dict[str, Any] = {
    "flag": False,
    "count": 3,
    "temperature": "25 degC",  # converted by pint to the declared K
    "label": "word",
    "tag": "x1",
    "material": "GaAs",
    "steps": [1, 2, 3],
    "settings": {"b": 2},
    "samples": [0.5, 1.5],
    "element": "Ge",  # the notebook receives its atomic weight
    "notes": "hello from the client",
    "picture_in": {"name": "in.png", "base64": _png(5, 3)},
}


def _runs(server: MCPServer) -> int:
    return int(server.core.registry.tools.get("allkinds").extra["sim2l"].store.runs)


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.anyio
async def test_a_sim2l_runs_with_papermill_and_identical_inputs_come_from_the_stored_run(tmp_path: Path) -> None:
    server = MCPServer("sim2l-tests", state_dir=str(tmp_path), argument_errors="protocol")
    server.add_sim2l(str(NOTEBOOK))
    progress: list[float] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(value)

    with serve(server) as url, anyio.fail_after(240):
        async with mcp_client(url + "mcp") as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            schema = listed["allkinds"].input_schema
            jsonschema.Draft202012Validator.check_schema(schema)
            assert schema["properties"]["material"]["enum"] == ["Si", "Ge", "GaAs"]
            assert schema["properties"]["temperature"]["type"] == ["number", "string"]
            assert "Units: K" in schema["properties"]["temperature"]["description"]
            assert "older desc key" in schema["properties"]["label"]["description"]
            assert "- kelvin (Number, K)" in (listed["allkinds"].description or "")

            # The run that fails goes at once beside the first (a kernel each): one kernel start's wait, not two.
            answers: dict[str, Any] = {}

            async def call(key: str, arguments: dict[str, Any], **options: Any) -> None:
                answers[key] = await client.call_tool("allkinds", arguments, **options)

            async with anyio.create_task_group() as both:
                both.start_soon(functools.partial(call, "first", ARGUMENTS, progress_callback=on_progress))
                both.start_soon(call, "failed", {"label": "fail"})
            first = answers["first"]
            assert not first.is_error, first.content
            data = first.structured_content
            assert data is not None
            assert data["cached"] is False
            outputs = data["outputs"]
            assert outputs["kelvin"] == pytest.approx(298.15)
            assert data["units"] == {"kelvin": "K"}
            assert outputs["total"] == 9
            assert outputs["scaled"] == [1.5, 4.5]
            assert outputs["banner"] == "WORD"
            summary = outputs["summary"]
            assert summary["material"] == "GaAs"
            assert summary["element"] == pytest.approx(72.63, abs=0.01)
            assert summary["notes"] == "hello from the client"
            assert summary["picture_in"] == [5, 3]
            assert json.loads(first.content[0].text) == data  # a text-only client reads the same
            kinds = [block.type for block in first.content]
            assert "image" in kinds
            links = {block.name: block for block in first.content if block.type == "resource_link"}
            assert set(links) == {"picture.png", "report.txt"}
            report = await client.read_resource(links["report.txt"].uri)
            assert report.contents[0].text == "word at 298.15 K on GaAs\n"
            assert report.contents[0].mime_type == links["report.txt"].mime_type == "text/plain"
            # A file the run did not save is "not found" (-32002), not a server failure (-32603).
            missing = str(links["report.txt"].uri).rsplit("/", 1)[0] + "/nope.txt"
            with pytest.raises(MCPError) as refused:
                await client.read_resource(missing)
            assert refused.value.error.code == -32002, refused.value.error
            assert "saved no file 'nope.txt'" in refused.value.error.message
            # The executed notebook is a file of the run (documented); the run's record is the store's.
            executed = await client.read_resource(missing.replace("nope.txt", "allkinds.ipynb"))
            assert executed.contents[0].mime_type == "application/x-ipynb+json"
            assert json.loads(executed.contents[0].text)["cells"], "the executed notebook, as JSON text"
            with pytest.raises(MCPError) as refused:
                await client.read_resource(missing.replace("nope.txt", "run.json"))
            assert refused.value.error.code == -32002, refused.value.error
            assert "saved no file 'run.json'" in refused.value.error.message
            # a NUL in the path ("%00") is not found either, not an internal error (trial13 F8)
            with pytest.raises(MCPError) as refused:
                await client.read_resource(missing.replace("nope.txt", "report.txt%00.png"))
            assert refused.value.error.code == -32002, refused.value.error
            assert "saved no file 'report.txt\\x00.png'" in refused.value.error.message
            assert progress, "papermill's cell progress reaches the client"
            assert _runs(server) == 1

            again = await client.call_tool("allkinds", ARGUMENTS)
            assert again.structured_content["cached"] is True
            assert again.structured_content["run"] == data["run"]
            assert again.structured_content["outputs"] == outputs
            assert _runs(server) == 1  # answered from the stored run

            for bad, named in (
                ({"temperature": "3 m"}, "temperature"),
                ({"temperature": "2000 K"}, "temperature"),
                ({"element": "Xx"}, "element"),
                ({"count": 0}, "count"),
                ({"material": "Sn"}, "material"),
                ({"picture_in": {"base64": "aGk="}}, "picture_in"),
                ({"temperature": "nan K"}, "not a finite number"),  # trial findings: a run of null outputs,
                ({"temperature": "1" * 100_000 + " K"}, "at most 256 characters"),  # and minutes of pint's parse
                # text that is not a number with units of the accepted shape, refused before pint reads it
                # (pint's parser failed with AssertionError, TokenError...): say what to write
                (
                    {"temperature": "__import__('os') K"},
                    "cannot read \"__import__('os') K\" as a number with units: it does not start with a number; "
                    "write a number and then units: unit names joined by *, / or spaces",
                ),
                ({"temperature": "((3 K"}, "cannot read \"((3 K\" as a number with units"),
            ):
                with pytest.raises(MCPError) as refused:
                    await client.call_tool("allkinds", bad)
                assert refused.value.error.code == -32602
                assert named in refused.value.error.message
                # worded as every tool's argument error (a fresh-user trial found the prefix missing)
                assert refused.value.error.message.startswith("Invalid arguments for tool 'allkinds': ")
                if bad == {"temperature": "2000 K"}:  # a limit says its units and what was given
                    assert '"2000 K" is out of range: the maximum value is' in refused.value.error.message
                    assert refused.value.error.message.rstrip().endswith(" K")
            assert _runs(server) == 1

            failed = answers["failed"]
            assert failed.is_error
            text = failed.content[0].text
            assert "the label asked this run to fail" in text
            assert "ValueError" in text
            assert "cell" in text
            assert _runs(server) == 1  # a failed run is not stored

    # A new server on the same state directory answers from the stored run: no papermill run. Served
    # with background=True (--async), a call is a durable job whose result get_job_result gives.
    restarted = MCPServer("sim2l-tests", state_dir=str(tmp_path))
    restarted.add_sim2l(str(NOTEBOOK), background=True)
    with serve(restarted) as url, anyio.fail_after(60):
        async with mcp_client(url + "mcp") as client:
            started = await client.call_tool("allkinds", ARGUMENTS)
            job = started.structured_content["job_id"]
            while True:
                polled = (await client.call_tool("get_job_result", {"job_id": job})).structured_content
                if polled["status"] != "running":
                    break
                await anyio.sleep(0.1)
            assert polled["status"] == "done", polled
            assert polled["result"]["cached"] is True
            assert polled["result"]["run"] == data["run"]
            assert polled["result"]["outputs"]["banner"] == "WORD"
    assert _runs(restarted) == 0

    # Output values over max_inline_bytes: all of them are kept in the run's outputs.json (linked), and the
    # largest are replaced by a note naming it until the rest fits.
    small = MCPServer("sim2l-tests", state_dir=str(tmp_path), max_inline_bytes=120)
    small.add_sim2l(str(NOTEBOOK))
    with serve(small) as url, anyio.fail_after(60):
        async with mcp_client(url + "mcp") as client:
            brief = await client.call_tool("allkinds", ARGUMENTS)
            kept = brief.structured_content["outputs"]
            assert kept["banner"] == "WORD"
            assert kept["summary"] == "129 bytes of JSON, kept in outputs.json (linked)"
            link = next(b for b in brief.content if b.type == "resource_link" and b.name == "outputs.json")
            whole = await client.read_resource(link.uri)
            # Read with the type its link names (it was read back as text/plain).
            assert whole.contents[0].mime_type == link.mime_type == "application/json"
            assert json.loads(whole.contents[0].text) == outputs
    assert _runs(small) == 0


def test_the_startup_text_counts_the_file_template_apart_from_resources(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``resources/list`` of a Sim2L server is empty: the banner said "Resources: 1" (its template)."""
    server = MCPServer("sim2l-banner", state_dir=str(tmp_path))
    server.add_sim2l(str(NOTEBOOK))
    server.start(host="127.0.0.1", port=0, quiet=False)
    server.stop()
    out = capsys.readouterr().out
    assert "  Resources: 0, resource templates: 1\n" in out, out
    server.resource("note://plain", name="plain")(lambda: "plain")
    server.start(host="127.0.0.1", port=0, quiet=False)
    server.stop()
    assert "  Resources: 1, resource templates: 1\n" in capsys.readouterr().out
