"""``nanohubmcp run`` / ``start_mcp --app`` say which arguments of the app's own ``server.run(...)`` they leave
out. A call with ``**options`` or a value by position said nothing (a fresh-user trial: an app's
``server.run(port=8000, **LIM)`` with ``max_request_bytes`` in ``LIM`` was served without its limit, silently).
A ``**`` of a dict the file writes out (``**{...}``, ``**dict(...)``, a name bound once to one) has its keys named as
``token=`` is read from it (trial81 L1: such a ``**{"port": 8000}`` was "arguments it cannot name")."""

from __future__ import annotations

from pathlib import Path

import pytest

from nanohubmcp.nanohub.run_call import skipped_keywords_note

OPTIONS = {"max_request_bytes": "--max-request-bytes", "path_prefix": "--path-prefix"}


def note_of(folder: Path, call: str) -> str | None:
    """The note of ``nanohubmcp run`` for an app.py of the one line ``call``."""
    app = folder / "app.py"
    app.write_text(call + "\n")
    return skipped_keywords_note(app, "nanohubmcp run", OPTIONS, set())


@pytest.mark.parametrize(("call", "expected"), [
    ('LIM = limits()\nserver.run(port=8000, **LIM)',
     "app.py passes arguments to server.run() that this note cannot name (line 2: by position or **options); "
     "nanohubmcp run serves the server itself and does not make that call"),
    ('server.run("0.0.0.0", 8000)', "app.py passes arguments to server.run() that this note cannot name (line 1"),
    ('server.run(path_prefix="/x", **extra)',
     "app.py passes path_prefix= and arguments it cannot name (by position or **) to server.run() (line 1)"),
])
def test_arguments_the_note_cannot_name_are_still_mentioned(tmp_path: Path, call: str, expected: str) -> None:
    note = note_of(tmp_path, call)
    assert note is not None
    assert note.startswith(expected), note


def test_a_call_with_only_the_port_needs_no_note(tmp_path: Path) -> None:
    app = tmp_path / "app.py"
    app.write_text("server.run(port=8000, quiet=True)\n")
    assert skipped_keywords_note(app, "nanohubmcp run", OPTIONS, set()) is None



@pytest.mark.parametrize(("call", "expected"), [
    ('LIM = {"max_request_bytes": 5000}\nserver.run(port=8000, **LIM)',
     "app.py passes max_request_bytes= to server.run() (line 2)"),
    ('server.run(**{"token": "", "port": 8000})', "app.py passes token= to server.run() (line 1)"),
    ('server.run(**dict(path_prefix="/x"))', "app.py passes path_prefix= to server.run() (line 1)"),
])
def test_a_double_star_of_a_dict_written_out_has_its_keys_named(tmp_path: Path, call: str, expected: str) -> None:
    note = note_of(tmp_path, call)
    assert note is not None
    assert note.startswith(expected), note


def test_a_double_star_of_the_port_alone_needs_no_note(tmp_path: Path) -> None:
    assert note_of(tmp_path, 'server.run(**{"port": 8000})') is None
