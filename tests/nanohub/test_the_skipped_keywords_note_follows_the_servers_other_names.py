"""The note of ``nanohubmcp run`` / ``start_mcp --app`` on the ``run()`` arguments they leave out finds the call
under the names the app file gives its ``server`` and that server's ``run`` at module level: ``srv.run(...)``,
``app.run(...)`` with ``server = app``, ``run(...)`` with ``run = server.run`` said nothing, and their limits
silently did not apply. A name bound to something else too, or another server, is not followed."""

from __future__ import annotations

from pathlib import Path

import pytest

from nanohubmcp.nanohub.run_call import skipped_keywords_note

OPTIONS = {"max_request_bytes": "--max-request-bytes"}


def note(tmp_path: Path, text: str) -> str | None:
    app = tmp_path / "app.py"
    app.write_text("from nanohubmcp import MCPServer\n" + text)
    return skipped_keywords_note(app, "nanohubmcp run", OPTIONS, set())


@pytest.mark.parametrize(("text", "line"), [
    ('server = MCPServer("x")\nsrv = server\nsrv.run(port=1, max_request_bytes=2048)\n', 4),
    ('app = MCPServer("x")\nserver = app\n\nif __name__ == "__main__":\n    app.run(max_request_bytes=2048)\n', 6),
    ('server = app = MCPServer("x")\napp.start(max_request_bytes=2048)\n', 3),
    ('server = MCPServer("x")\nrun = server.run\ngo = run\ngo(max_request_bytes=2048)\n', 5),
    ('go = run\nrun = server.run\nsrv: MCPServer = server\n\ndef main():\n    srv.run(max_request_bytes=2048)\n', 7),
    ('server = MCPServer("x")\nwith open(__file__):\n    srv = server\nsrv.run(max_request_bytes=2048)\n', 5),
])
def test_the_call_is_found_under_the_servers_other_names(tmp_path: Path, text: str, line: int) -> None:
    said = note(tmp_path, text)
    assert said is not None, text
    assert said.startswith(f"app.py passes max_request_bytes= to server.run() (line {line}); nanohubmcp run "
                           "serves the server itself and does not make that call: give --max-request-bytes"), said


@pytest.mark.parametrize("text", [
    'server = MCPServer("x")\nother = MCPServer("y")\nother.run(max_request_bytes=2048)\n',
    'server = MCPServer("x")\nsrv = server\nsrv = MCPServer("y")\nsrv.run(max_request_bytes=2048)\n',
    'server = MCPServer("x")\nrun = server.run\nfor run in (print,):\n    pass\nrun(max_request_bytes=2048)\n',
    'server = MCPServer("x")\ndef main():\n    srv = server\n    srv.run(max_request_bytes=2048)\n',
    'server = MCPServer("x")\nsrv, other = server, 1\nsrv.run(max_request_bytes=2048)\n',
])
def test_names_not_known_to_be_the_server_are_not_followed(tmp_path: Path, text: str) -> None:
    assert note(tmp_path, text) is None
