"""The README quotes REST's invalid-arguments answer exactly as the server sends it (a fresh-user trial found
single quotes in the README where the server writes JSON spelling)."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from support import serve

from nanohubmcp import MCPServer

ROOT = Path(__file__).resolve().parents[2]


def quoted() -> str:
    """The message inside the first `{"error": "Invalid arguments ..."}` the README or docs show."""
    texts = (
        [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
        if (ROOT / "docs").is_dir()
        else [ROOT / "README.md"]
    )
    for path in texts:
        found = re.search(r'`\{"error": "(Invalid arguments for tool .*?)", \.\.\.\}`', path.read_text(), re.S)
        if found:
            return json.loads('"' + " ".join(found.group(1).split()) + '"')
    pytest.fail("neither the README nor the docs quote REST's invalid-arguments answer")


def test_the_quoted_message_is_what_rest_answers() -> None:
    server = MCPServer("quotes")

    @server.tool()
    def add(a: float, b: float) -> float:
        """Add two numbers."""
        return a + b

    with serve(server) as url:
        request = urllib.request.Request(
            url + "tools/add", json.dumps({"a": "x", "b": 3}).encode(), {"Content-Type": "application/json"}
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=30)
    assert refused.value.code == 400
    assert json.loads(refused.value.read())["error"] == quoted()
