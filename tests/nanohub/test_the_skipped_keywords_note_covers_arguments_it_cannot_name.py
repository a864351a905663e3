"""``nanohubmcp run`` / ``start_mcp --app`` say which arguments of the app's own ``server.run(...)`` they leave
out. A call with ``**options`` or a value by position said nothing (a fresh-user trial: an app's
``server.run(port=8000, **LIM)`` with ``max_request_bytes`` in ``LIM`` was served without its limit, silently)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nanohubmcp.nanohub.run_call import skipped_keywords_note

OPTIONS = {"max_request_bytes": "--max-request-bytes", "path_prefix": "--path-prefix"}


@pytest.mark.parametrize(("call", "expected"), [
    ('LIM = {"max_request_bytes": 5000}\nserver.run(port=8000, **LIM)',
     "app.py passes arguments to server.run() that this note cannot name (line 2: by position or **options); "
     "nanohubmcp run serves the server itself and does not make that call"),
    ('server.run("0.0.0.0", 8000)', "app.py passes arguments to server.run() that this note cannot name (line 1"),
    ('server.run(path_prefix="/x", **extra)',
     "app.py passes path_prefix= and arguments it cannot name (by position or **) to server.run() (line 1)"),
])
def test_arguments_the_note_cannot_name_are_still_mentioned(tmp_path: Path, call: str, expected: str) -> None:
    app = tmp_path / "app.py"
    app.write_text(call + "\n")
    note = skipped_keywords_note(app, "nanohubmcp run", OPTIONS, set())
    assert note is not None
    assert note.startswith(expected), note


def test_a_call_with_only_the_port_needs_no_note(tmp_path: Path) -> None:
    app = tmp_path / "app.py"
    app.write_text("server.run(port=8000, quiet=True)\n")
    assert skipped_keywords_note(app, "nanohubmcp run", OPTIONS, set()) is None

