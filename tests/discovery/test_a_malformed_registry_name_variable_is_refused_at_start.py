"""A malformed ``NANOHUBMCP_REGISTRY_NAME`` is refused when serving starts (one line saying the form,
exit status 2, as other bad settings are), and the Server Card and catalogs never answer 500 for it.

Found by a fresh-user trial (trial28 T5): ``NANOHUBMCP_REGISTRY_NAME=bad nanohubmcp run weather.py``
started without a word; the card and both catalogs then answered 500 on every request, with a
traceback in the log.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.errors import ConfigurationError

ROOT = Path(__file__).resolve().parents[2]
FORM = "must be reverse-DNS with one slash, namespace/name as the MCP Registry requires, e.g. org.example/my-server"
MESSAGE = (f"$NANOHUBMCP_REGISTRY_NAME='bad': the registry name {FORM} (letters, digits, '.', '-' before the "
           "slash; also '_' after it; 3 to 200 characters)")
ROUTES = ("mcp/server-card", ".well-known/mcp/catalog.json", ".well-known/ai-catalog.json")


def refused(*command: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "NANOHUBMCP_REGISTRY_NAME": "bad"}
    try:
        return subprocess.run([sys.executable, *command], capture_output=True, text=True, timeout=60, cwd=cwd,
                              stdin=subprocess.DEVNULL, env=environment)
    except subprocess.TimeoutExpired as served:
        pytest.fail(f"the server started and served with a malformed name: {served.stderr!r}")


def test_nanohubmcp_run_and_a_script_refuse_it_with_exit_status_2(tmp_path: Path) -> None:
    done = refused("-m", "nanohubmcp", "run", "examples/simple/start_mcp.py", "--port", "0")
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == f"nanohubmcp run: error: {MESSAGE}"  # one line: no usage (trial71 T71-7)

    script = tmp_path / "weather.py"
    script.write_text("from nanohubmcp import MCPServer\n"
                      "server = MCPServer('weather')\n"
                      "server.run(port=0)\n")
    done = refused(str(script), cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == f"Error: {MESSAGE}"


def test_start_refuses_it_and_the_routes_never_answer_500(monkeypatch: pytest.MonkeyPatch) -> None:
    server = MCPServer("weather")
    monkeypatch.setenv("NANOHUBMCP_REGISTRY_NAME", "no slash here")
    with pytest.raises(ConfigurationError, match=r"NANOHUBMCP_REGISTRY_NAME='no slash here': the registry name"):
        server.start(port=0, quiet=True)
    assert server.url is None

    monkeypatch.setenv("NANOHUBMCP_REGISTRY_NAME", "io.github.example/weather")
    with serve(server, quiet=True) as url:
        for route in ROUTES:
            with urllib.request.urlopen(url + route, timeout=10) as response:
                assert response.status == 200
        # Made malformed while serving (a notebook's os.environ, say): the derived name, never a 500.
        monkeypatch.setenv("NANOHUBMCP_REGISTRY_NAME", "bad")
        for route in ROUTES:
            with urllib.request.urlopen(url + route, timeout=10) as response:
                assert response.status == 200
                document = json.loads(response.read())
        card = json.loads(urllib.request.urlopen(url + ROUTES[0], timeout=10).read())
        assert card["name"] == "local/weather"
        assert document["entries"][0]["identifier"] == "urn:air:local:weather"
