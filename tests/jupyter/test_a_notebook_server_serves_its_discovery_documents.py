"""A notebook's server serves the discovery documents a script's does: its Server Card at ``<base>mcp/server-card``
and the MCP and AI catalogs, behind the notebook's generated token, valid against the schemas that
tests/discovery vendors."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import jsonschema
import pytest

pytestmark = pytest.mark.slow

SCHEMAS = Path(__file__).resolve().parents[1] / "discovery" / "schemas"


def fetch(url: str, token: str | None = None) -> tuple[int, str, Any]:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers["Content-Type"], json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], None


def test_the_notebook_server_serves_its_card_and_catalogs(start_kernel: Any) -> None:
    kernel = start_kernel()
    kernel.run_ok("import os\nos.environ.pop('MCP_TOKEN', None)")
    kernel.run_ok("%load_ext nanohubmcp\n%config NanohubMCP.port = 0\n%config NanohubMCP.name = 'lab-notebook'")
    kernel.run_ok("%%mcp_tool\ndef add(a: int, b: int) -> int:\n    '''Add two integers.'''\n    return a + b")
    text = kernel.run_ok("%mcp status").text
    token = re.match(r"(\S+)\n", kernel.run_ok("%mcp token").text)
    endpoint = re.search(r"MCP endpoint: (\S+)", text)
    assert token is not None, text
    assert endpoint is not None, text
    card_url = endpoint.group(1).rstrip("/") + "/server-card"
    assert fetch(card_url)[0] == 401
    status, media, card = fetch(card_url, token.group(1))
    assert status == 200
    assert media == "application/mcp-server-card+json"
    schema = json.loads((SCHEMAS / "server-card.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(card)
    assert card["name"] == "local/lab-notebook"
    assert card["remotes"][0]["url"] == endpoint.group(1)
    base = endpoint.group(1).rstrip("/").removesuffix("mcp")
    for path, name in ((".well-known/mcp/catalog.json", "mcp-catalog"), (".well-known/ai-catalog.json", "ai-catalog")):
        status, _, catalog = fetch(base + path, token.group(1))
        assert status == 200
        jsonschema.Draft202012Validator(json.loads((SCHEMAS / f"{name}.schema.json").read_text())).validate(catalog)
        assert catalog["entries"][0]["url"] == card_url
