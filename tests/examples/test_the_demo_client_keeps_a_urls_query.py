"""scripts/demo_client.py added ``/mcp`` after a URL's query: ``http://h:8000/sse?x=1`` was driven at
``.../sse?x=1/mcp`` (the query's value changed), ``http://h:8000/?x=1`` at ``.../?x=1/mcp`` (the server's root, not
its endpoint) (review r32 F6). ``/mcp`` now goes on the URL's path, the query after it; a real server is driven at
such a URL."""

from __future__ import annotations

import os
import subprocess
import sys
from types import ModuleType

import pytest
from example_process import ROOT, run_example

CLIENT = ROOT / "scripts" / "demo_client.py"


@pytest.fixture(scope="module")
def demo_client() -> ModuleType:
    sys.path.insert(0, str(CLIENT.parent))
    try:
        import demo_client
    finally:
        sys.path.remove(str(CLIENT.parent))
    return demo_client


@pytest.mark.parametrize(("url", "driven", "legacy"), [
    ("http://h:8000/sse?x=1", "http://h:8000/sse?x=1", True),
    ("http://h:8000/sse/?x=1", "http://h:8000/sse/?x=1", True),
    ("http://h:8000/?x=1", "http://h:8000/mcp?x=1", False),
    ("http://h:8000?x=1", "http://h:8000/mcp?x=1", False),
    ("http://h:8000/weber/app/?x=1&y=2", "http://h:8000/weber/app/mcp?x=1&y=2", False),
    ("http://h:8000/mcp?x=1", "http://h:8000/mcp?x=1", False),
    ("http://h:8000/", "http://h:8000/mcp", False),
    ("http://h:8000", "http://h:8000/mcp", False),
    ("http://h:8000/sse", "http://h:8000/sse", True),
    ("http://h:8000/mcp/", "http://h:8000/mcp/", False),
])  # fmt: skip
def test_mcp_goes_on_the_path_before_the_query(demo_client: ModuleType, url: str, driven: str, legacy: bool) -> None:
    assert demo_client.endpoint(url) == driven
    assert demo_client.is_legacy_sse(demo_client.endpoint(url)) is legacy


@pytest.mark.slow
def test_a_base_url_with_a_query_is_driven_at_its_mcp_endpoint() -> None:
    environment = {key: value for key, value in os.environ.items() if key not in ("MCP_TOKEN", "MCP_PORT")}
    with run_example("simple") as example:
        done = subprocess.run(
            [sys.executable, str(CLIENT), example.url + "?x=1", "--tool", "add", "--arguments", '{"a": 2, "b": 3}',
             "--timeout", "60"],
            capture_output=True, text=True, timeout=90, stdin=subprocess.DEVNULL, env=environment,
        )  # fmt: skip
    assert f"connect to {example.url}mcp?x=1 (Streamable HTTP)" in done.stdout, done.stdout + done.stderr
    assert done.returncode == 0, done.stdout + done.stderr
    assert '"text": "5.0"' in done.stdout
