"""The note of ``nanohubmcp run`` / ``start_mcp --app`` on the ``server.run(...)`` arguments they leave out takes a
``**`` argument for the script's own command line when a ``# nanohubmcp: own command line`` comment is on the line
above the call (what the exporter writes), or, in a script exported before that comment, when it is
``**_command_line_options()``. That name alone said so before (5a74c85): a hand-written script whose own
``_command_line_options()`` returns ``max_request_bytes`` was served without its limit, silently."""

from __future__ import annotations

from pathlib import Path

import pytest

from nanohubmcp.nanohub.run_call import OWN_COMMAND_LINE, skipped_keywords_note

OPTIONS = {"max_request_bytes": "--max-request-bytes"}
CANNOT_NAME = ("app.py passes arguments to server.run() that this note cannot name (line {line}: by position or "
               "**options); nanohubmcp run serves the server itself and does not make that call")
HEADER = '"""My server.\n\nExported: 2026-12-01 by nanohubmcp 1.0.0.dev0. Edit the notebook and export it again.\n"""\n'
HELPER = 'def _command_line_options():\n    return {"max_request_bytes": 5000}\n\n\n'


def note(tmp_path: Path, text: str) -> str | None:
    app = tmp_path / "app.py"
    app.write_text(text)
    return skipped_keywords_note(app, "nanohubmcp run", OPTIONS, set())


def test_a_hand_written_command_line_options_function_is_arguments_the_note_cannot_name(tmp_path: Path) -> None:
    said = note(tmp_path, HELPER + 'if __name__ == "__main__":\n    server.run(**_command_line_options())\n')
    assert said is not None
    assert said.startswith(CANNOT_NAME.format(line=6)), said


def test_a_script_exported_before_the_marker_still_gets_no_note(tmp_path: Path) -> None:
    run = 'if __name__ == "__main__":\n    server.run(**_command_line_options(){})\n'
    assert note(tmp_path, HEADER + HELPER + run.format("")) is None
    said = note(tmp_path, HEADER + HELPER + run.format(", max_request_bytes=2048"))
    assert said is not None
    assert said.startswith("app.py passes max_request_bytes= to server.run() (line 10)"), said


@pytest.mark.parametrize("run", ["server.run(**parse_args())", "server.run(**OPTIONS)"])
def test_the_marker_says_a_call_passes_its_own_command_line(tmp_path: Path, run: str) -> None:
    assert note(tmp_path, f'if __name__ == "__main__":\n    {OWN_COMMAND_LINE} (mine)\n    {run}\n') is None
    # elsewhere in the file, or above another call, it says nothing of this one
    said = note(tmp_path, f'{OWN_COMMAND_LINE}\n\nif __name__ == "__main__":\n    {run}\n')
    assert said is not None
    assert said.startswith(CANNOT_NAME.format(line=4)), said


def test_a_marked_call_still_names_its_keywords_and_arguments_by_position(tmp_path: Path) -> None:
    said = note(tmp_path, f"{OWN_COMMAND_LINE}\nserver.run(**parse_args(), max_request_bytes=2048)\n")
    assert said is not None
    assert said.startswith("app.py passes max_request_bytes= to server.run() (line 2)"), said
    said = note(tmp_path, f'{OWN_COMMAND_LINE}\nserver.run("0.0.0.0", **parse_args())\n')
    assert said is not None
    assert said.startswith(CANNOT_NAME.format(line=2)), said
