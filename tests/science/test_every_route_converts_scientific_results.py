"""The same conversions on every route: Streamable HTTP in both eras, legacy SSE, REST and stdio."""

from __future__ import annotations

import json
import sys
import urllib.request
from pathlib import Path
from typing import Any

import anyio
import pytest
from support import mcp_client, serve

np = pytest.importorskip("numpy")
pytest.importorskip("pandas")
pytest.importorskip("matplotlib")
sys.path.insert(0, str(Path(__file__).resolve().parent))
science_app = pytest.importorskip("science_app")
fastmcp = pytest.importorskip("fastmcp")

APP = Path(__file__).resolve().parent / "science_app.py"
RECORDS = [{"index": 0, "x": 1.5, "when": "2026-01-01T00:00:00"}, {"index": 1, "x": 2.5, "when": "2026-01-02T00:00:00"}]


def rest(base: str, name: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(
        f"{base}tools/{name}",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


async def check(client: Any, *, modern: bool = False) -> None:
    call = (lambda n, a: client.call_tool(n, a, raise_on_error=False)) if modern else client.call_tool
    array = await call("array", {})
    assert array.structured_content == {"result": science_app.ARRAY.tolist()}
    frame = await call("frame", {})
    assert frame.structured_content == {"result": RECORDS}
    figure = await call("figure", {})
    assert [(b.type, b.mime_type) for b in figure.content] == [("image", "image/png")]
    big = await call("big", {"n": 2000})
    [link] = [b for b in big.content if b.type == "resource_link"]
    read = await client.read_resource(link.uri)
    contents = read if modern else read.contents
    np.testing.assert_array_equal(json.loads(contents[0].text), np.arange(2000) / 3)


@pytest.mark.anyio
async def test_http_in_both_eras_and_legacy_sse() -> None:
    with serve(science_app.server) as url, anyio.fail_after(60):
        async with mcp_client(url + "mcp") as classic:
            await check(classic)
        async with mcp_client(url + "sse", transport="sse") as legacy:
            await check(legacy)
        async with fastmcp.Client(url + "mcp") as modern:
            await check(modern, modern=True)


def test_rest_answers_the_converted_data() -> None:
    with serve(science_app.server) as url:
        assert rest(url, "array", {}) == {"result": science_app.ARRAY.tolist()}
        assert rest(url, "frame", {}) == {"result": RECORDS}


@pytest.mark.anyio
async def test_stdio() -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "nanohubmcp", "run", str(APP), "--transport", "stdio"]
    )
    with anyio.fail_after(60):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await check(session)
