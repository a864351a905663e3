"""trial76 F3: ``nanohubmcp server-json`` of an app whose file passes ``server.run(token="...")`` or calls
``server.require_token()`` wrote remotes with no ``Authorization`` header, while ``nanohubmcp run`` of the same
file refuses to serve without a token and its card lists the header: a registry client connected without
asking for one. The document now says what the served server requires, read as serving reads it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from support import app_server

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
TOOL = '''
@server.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b
'''
APPS = {
    "run_token.py": ("from nanohubmcp import MCPServer\nserver = MCPServer('run-token')\n" + TOOL
                     + "if __name__ == '__main__':\n    server.run(port=8000, token='s3cret-from-file')\n"),
    "required.py": ("from nanohubmcp import MCPServer\nserver = MCPServer('required')\n"
                    "server.require_token('lab data')\n" + TOOL),
}


def server_json(app: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "nanohubmcp", "server-json", str(app), "--public-url", "https://tools.example.org/"],
        capture_output=True, text=True, timeout=60, cwd=app.parent, stdin=subprocess.DEVNULL,
        env={k: v for k, v in os.environ.items() if k not in ("MCP_TOKEN", "SESSION", "SESSIONDIR")},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    document: dict[str, object] = json.loads(done.stdout)
    return document


@pytest.mark.parametrize("name", sorted(APPS))
def test_its_remotes_ask_for_the_header_the_served_card_names(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = tmp_path / name
    app.write_text(APPS[name])
    document = server_json(app)
    remotes = document["remotes"]
    assert isinstance(remotes, list)
    assert remotes
    monkeypatch.setenv("MCP_TOKEN", "given-token")  # nanohubmcp run starts the file's server only with one
    with app_server(app, log=tmp_path / "served.log") as served:
        request = urllib.request.Request(f"{served.url}mcp/server-card",
                                         headers={"Authorization": "Bearer given-token"})
        with urllib.request.urlopen(request, timeout=30) as response:
            card = json.loads(response.read())
    (header,) = card["remotes"][0]["headers"]
    assert header["name"] == "Authorization"
    for remote in remotes:
        assert remote["headers"] == [header], remote
    # Over stdio neither server asks its caller for a token (only auth= does): the package declares none.
    (package,) = document["packages"]  # type: ignore[misc]
    assert "environmentVariables" not in package
