"""The exported script's ``server.run(**_command_line_options(), ...)`` has the ``# nanohubmcp: own command line``
comment on the line above it, so that the note of ``nanohubmcp run`` / ``start_mcp --app`` names only the
arguments the notebook's settings add (the ``**`` is the script's own command line, which theirs gives)."""

from __future__ import annotations

from pathlib import Path

import nbformat

from nanohubmcp.cli.serve import OPTION_OF_KEYWORD
from nanohubmcp.jupyter.translate import translate
from nanohubmcp.nanohub.run_call import OWN_COMMAND_LINE, skipped_keywords_note


def exported_note(tmp_path: Path, *sources: str, format_code: bool) -> tuple[list[str], str | None]:
    made = nbformat.v4.new_notebook()
    made.cells.extend(nbformat.v4.new_code_cell(source) for source in sources)
    script = tmp_path / "start_mcp.py"
    script.write_text(translate(made, source="work/demo.ipynb", format_code=format_code).text)
    return script.read_text().splitlines(), skipped_keywords_note(script, "nanohubmcp run", OPTION_OF_KEYWORD, set())


def test_the_marker_is_above_the_run_call_and_the_note_names_only_the_notebooks_settings(tmp_path: Path) -> None:
    tool = '%%mcp_tool\ndef add(a: int, b: int) -> int:\n    "Sum."\n    return a + b\n'
    lines, note = exported_note(tmp_path, tool, format_code=True)
    assert lines[-2].strip().startswith(OWN_COMMAND_LINE), lines[-2:]
    assert lines[-1] == "        server.run(**_command_line_options())"
    assert note is None

    lines, note = exported_note(tmp_path, tool, "%config NanohubMCP.max_request_bytes = 4096", format_code=False)
    assert lines[-2].strip().startswith(OWN_COMMAND_LINE), lines[-2:]
    assert note is not None
    assert note.startswith(f"start_mcp.py passes max_request_bytes= to server.run() (line {len(lines)}); "
                           "nanohubmcp run serves the server itself and does not make that call: give "
                           "--max-request-bytes"), note
