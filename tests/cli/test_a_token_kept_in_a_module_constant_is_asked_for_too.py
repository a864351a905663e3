"""trial77 F3: an app file that keeps its token in a constant — ``TOKEN = "s3cret"`` and, under ``if __name__ ==
"__main__":``, ``server.run(token=TOKEN)`` — asks for a token as surely as ``server.run(token="s3cret")`` does, and
``nanohubmcp run`` / ``start_mcp --app`` (which do not make that call) served it open with a note; ``server-json``
declared no header. The name's one top-level binding to a token is read as the token; a name bound again anywhere,
or to a value that may be None (``os.environ.get``), asks for nothing certain (its note stays)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nanohubmcp.nanohub.run_call import asked_token

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
    assert asked_token(app) == line


@pytest.mark.parametrize("body", [
    'TOKEN = os.environ.get("APP_TOKEN")\nserver.run(token=TOKEN)\n',  # may be None: nothing certain
    'TOKEN = "s3cret"\nTOKEN = ""\nserver.run(token=TOKEN)\n',  # bound again: to no authorization
    'TOKEN = "s3cret"\n\ndef off():\n    global TOKEN\n    TOKEN = None\n\nserver.run(token=TOKEN)\n',
    'for TOKEN in ("a", ""):\n    pass\nserver.run(token=TOKEN)\n',
    'TOKEN = ""\nserver.run(token=TOKEN)\n',
    'server.run(token=UNDEFINED)\n',
])
def test_a_name_that_may_hold_no_token_asks_for_none(tmp_path: Path, body: str) -> None:
    app = tmp_path / "app.py"
    app.write_text(HEAD + body)
    assert asked_token(app) is None
