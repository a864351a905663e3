"""Through nginx emulating weber, every URL the server hands out works, in both nanoHUB set-ups.

``wrwroxy``: the proxy strips ``/weber/<session>/<cookie>/<port>/`` and the app serves at ``/``
but advertises the weber URL. ``direct``: the proxy passes the path on and the app serves under
it (``path_prefix``). Only the weber path is proxied; nginx answers 404 elsewhere, so a link
that loses the prefix fails. Clients are the official ``mcp`` SDK and plain HTTP.
"""

from __future__ import annotations

import asyncio
import re
import time
from urllib.parse import urljoin

import pytest
from proxy_support import (
    PAUSE_AFTER_PROGRESS,
    WEBER_PATH,
    Weber,
    first_sse_event,
    get_json,
    post_json,
    request,
    timed_progress_call,
)
from support import mcp_client

pytestmark = pytest.mark.slow

ASYNC_TIMEOUT = 30.0


def run(coro: object) -> object:
    return asyncio.run(asyncio.wait_for(coro, ASYNC_TIMEOUT))  # type: ignore[arg-type]


def test_the_proxy_serves_only_the_weber_path(weber: Weber) -> None:
    status, _, body = request("GET", weber.nginx.origin + "/openapi.json")
    assert status == 404
    assert b"not under the weber path" in body
    assert weber.public_url == f"{weber.nginx.origin}{WEBER_PATH}"
    assert weber.server.url == weber.public_url
    expected_prefix = "" if weber.setup == "wrwroxy" else WEBER_PATH
    assert weber.info.path_prefix == expected_prefix


def test_streamable_http_client_calls_a_tool_through_the_prefix(weber: Weber) -> None:
    async def call() -> tuple[list[str], float]:
        async with mcp_client(weber.public_url + "mcp") as client:
            tools = sorted(t.name for t in (await client.list_tools()).tools)
            result = await client.call_tool("add", {"a": 2, "b": 3})
            return tools, float(result.content[0].text)

    assert run(call()) == (["add", "ask_name", "cancel_job", "count_slowly", "get_job_result", "square_later"], 5.0)


def test_legacy_sse_endpoint_event_resolves_under_the_public_prefix(weber: Weber) -> None:
    event, data = first_sse_event(weber.public_url + "sse")
    assert event == "endpoint"
    # A reference relative to the stream's URL (RFC 3986 § 5.2): it keeps the prefix.
    resolved = urljoin(WEBER_PATH + "sse", data)
    assert re.fullmatch(re.escape(WEBER_PATH) + r"messages/\?session_id=[\w-]+", resolved), data


def test_legacy_sse_client_calls_a_tool_through_the_prefix(weber: Weber) -> None:
    async def call() -> float:
        async with mcp_client(weber.public_url + "sse", transport="sse") as client:
            result = await client.call_tool("add", {"a": 40, "b": 2})
            return float(result.content[0].text)

    assert run(call()) == 42.0


def test_openapi_servers_url_plus_a_path_calls_the_tool_through_the_proxy(weber: Weber) -> None:
    document = get_json(weber.public_url + "openapi.json")
    servers = [s["url"] for s in document["servers"]]
    assert servers == [weber.public_url.rstrip("/")]
    assert "/tools/add" in document["paths"]
    status, body = post_json(servers[0] + "/tools/add", {"a": 1.5, "b": 2})
    assert status == 200, body
    assert float(body["result"]) == 3.5


def test_info_and_discovery_documents_name_urls_that_work_through_the_proxy(weber: Weber) -> None:
    base = weber.public_url
    info = get_json(base)
    discovery = get_json(base + ".well-known/mcp.json")
    assert info["endpoints"] == {
        "sse": base + "sse",
        "mcp": base + "mcp",
        "openapi": base + "openapi.json",
        "discovery": base + ".well-known/mcp.json",
        "tools": base + "tools/<name>",
    }
    assert {t["type"]: t["endpoint"] for t in discovery["transports"]} == {
        "streamable-http": base + "mcp",
        "sse": base + "sse",
    }
    # Each advertised URL answers through nginx.
    endpoints = info["endpoints"]
    assert get_json(endpoints["openapi"])["openapi"] == "3.1.0"
    assert get_json(endpoints["discovery"]) == discovery
    assert first_sse_event(endpoints["sse"])[0] == "endpoint"
    status, body = post_json(endpoints["tools"].replace("<name>", "add"), {"a": 1, "b": 1})
    assert status == 200, body
    assert float(body["result"]) == 2.0
    status, headers, raw = request(
        "POST",
        endpoints["mcp"],
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "curl-like", "version": "0"},
            },
        },
        headers={"Accept": "application/json, text/event-stream"},
    )
    assert status == 200, raw
    assert "mcp-session-id" in headers
    assert b'"serverInfo"' in raw


def test_progress_reaches_the_client_before_the_result_through_the_proxy(weber: Weber) -> None:
    """Each SSE event crosses nginx when written, not with the response's end.

    Measured: this holds with ``proxy_buffering off`` (configured here) and also with nginx's
    default buffering on, since nginx forwards what it has read and the server's
    ``X-Accel-Buffering: no`` switches buffering off anyway.
    """

    async def call() -> tuple[str, list[float], float]:
        async with mcp_client(weber.public_url + "mcp") as client:
            return await timed_progress_call(client)

    text, arrived, done = run(call())  # type: ignore[misc]
    assert text == "counted to 3"
    assert len(arrived) == 3
    assert done - arrived[-1] > PAUSE_AFTER_PROGRESS * 0.6, (arrived, done)


@pytest.mark.parametrize("transport", ["http", "sse"])
def test_a_request_to_the_client_mid_call_crosses_the_proxy(weber: Weber, transport: str) -> None:
    from mcp import types

    async def answer(context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"name": "alice"})

    endpoint = "mcp" if transport == "http" else "sse"

    async def call() -> str:
        async with mcp_client(
            weber.public_url + endpoint, transport=transport, elicitation_callback=answer
        ) as client:
            return str((await client.call_tool("ask_name", {})).content[0].text)

    assert run(call()) == "hello alice"


def test_startup_banner_names_the_public_urls(weber: Weber, capsys: pytest.CaptureFixture[str]) -> None:
    port = weber.server.port
    weber.server.stop()
    weber.server.start(
        host="127.0.0.1",
        port=port,
        path_prefix=weber.info.path_prefix,
        public_url=weber.public_url,
        quiet=False,
    )
    printed = capsys.readouterr().out
    for suffix in ("mcp", "sse", "openapi.json", ".well-known/mcp.json", "tools/<name>"):
        assert f" {weber.public_url}{suffix}\n" in printed + "\n", (suffix, printed)
    assert f"listening on 127.0.0.1:{port}" in printed
    # The restarted server is still reachable through nginx on the same upstream port.
    assert get_json(weber.public_url)["name"] == "weber-test"


def test_an_async_tools_job_is_polled_at_the_path_its_answer_names(weber: Weber) -> None:
    status, handle = post_json(weber.public_url + "tools/square_later", {"x": 7})
    assert status == 202, handle
    match = re.search(r"POST (\S+/tools/get_job_result)", handle["message"])
    assert match, handle["message"]
    assert match.group(1) == WEBER_PATH + "tools/get_job_result"
    deadline = time.monotonic() + 10
    while True:
        status, answer = post_json(weber.nginx.origin + match.group(1), {"job_id": handle["job_id"]})
        assert status == 200, answer
        if answer["status"] != "running":
            break
        assert time.monotonic() < deadline, answer
        time.sleep(0.05)
    assert answer == {"status": "done", "job_id": handle["job_id"], "result": {"square": 49}}
