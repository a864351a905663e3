"""trial77 F3: an app file that keeps its token in a constant — ``TOKEN = "s3cret"`` and, under ``if __name__ ==
"__main__":``, ``server.run(token=TOKEN)`` — asks for a token as surely as ``server.run(token="s3cret")`` does, and
``nanohubmcp run`` / ``start_mcp --app`` (which do not make that call) served it open with a note; ``server-json``
declared no header. The name's one top-level binding to a token is read as the token; one to no token (``""``,
an ``os.environ.get`` giving None where it is served) asks for none; a name bound again anywhere asks for one,
not known (trial79 F6)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nanohubmcp.nanohub.run_call import AskedToken, asked_token

HEAD = 'import os\nfrom nanohubmcp import MCPServer\n\nserver = MCPServer("kept")\n'


@pytest.mark.parametrize(("body", "line"), [
    ('TOKEN = "s3cret"\n\nif __name__ == "__main__":\n    server.run(token=TOKEN)\n', 8),
    ('TOKEN: str = os.environ["APP_TOKEN"]\nserver.run(port=9000, token=TOKEN)\n', 6),
    ('SECRET = f"{os.getpid()}x"\nif __name__ == "__main__":\n    server.run(token=SECRET)\n', 7),
    ('server.run(token="s3cret")\n', 5),
])
def test_a_name_bound_once_to_a_token_asks_for_one(tmp_path: Path, body: str, line: int) -> None:
    app = tmp_path / "app.py"
    app.write_text(HEAD + body)
    assert asked_token(app, environ={}) == AskedToken(line, known=True)


@pytest.mark.parametrize("body", [
    'TOKEN = os.environ.get("APP_TOKEN")\nserver.run(token=TOKEN)\n',  # None where it is served: as the app's call
    'TOKEN = ""\nserver.run(token=TOKEN)\n',
])
def test_a_name_bound_once_to_no_token_asks_for_none(tmp_path: Path, body: str) -> None:
    app = tmp_path / "app.py"
    app.write_text(HEAD + body)
    assert asked_token(app, environ={}) is None


@pytest.mark.parametrize("body", [
    'TOKEN = "s3cret"\nTOKEN = ""\nserver.run(token=TOKEN)\n',  # bound again: what it holds then is not known
    'TOKEN = "s3cret"\n\ndef off():\n    global TOKEN\n    TOKEN = None\n\nserver.run(token=TOKEN)\n',
    'for TOKEN in ("a", ""):\n    pass\nserver.run(token=TOKEN)\n',
    'server.run(token=UNDEFINED)\n',
])
def test_a_name_that_may_hold_anything_asks_for_one_not_known(tmp_path: Path, body: str) -> None:
    # trial79 F6: these were served open, with a note; the commands now fail closed
    app = tmp_path / "app.py"
    app.write_text(HEAD + body)
    found = asked_token(app, environ={})
    assert found is not None
    assert not found.known
