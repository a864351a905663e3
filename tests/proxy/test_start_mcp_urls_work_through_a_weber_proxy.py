"""``start_mcp`` in a fake tool session behind nginx playing weber: every URL it prints works.

With wrwroxy (a stand-in forwarder; nginx strips the weber path like weber + wrwroxy) and
without it (the app serves under the weber path; nginx passes the path on). The launcher
prints the hub's public URLs (``https://proxy.hub.example.org/weber/...``); here that host is
nginx on loopback, so each printed URL is followed with its origin swapped for nginx's.
The stand-ins (login shell, ``use``, wrwroxy) are the nanoHUB tests' own.
"""

from __future__ import annotations

import asyncio
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
from nginx_weber import Nginx, PortTaken, WeberRoute, free_port
from proxy_support import first_sse_event, get_json, post_json
from support import mcp_client

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "nanohub"))  # the nanoHUB stand-ins
from nanohub_standins import GOOD_APP, Hub, Launch

pytestmark = pytest.mark.slow

PUBLIC_ORIGIN = "https://proxy.hub.example.org"
PREFIX = "/weber/4242/c00kie/123/"
PUBLIC_URL = PUBLIC_ORIGIN + PREFIX


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[Hub]:
    (tmp_path / "hub").mkdir()
    made = Hub(tmp_path / "hub")
    yield made
    made.kill_survivors()


def start_nginx(executable: str, workdir: Path, upstream: int, strip: bool) -> Nginx:
    for attempt in range(3):
        folder = workdir / f"nginx-{attempt}"
        folder.mkdir(parents=True)
        try:
            return Nginx(executable, folder, WeberRoute(PREFIX, upstream, strip=strip), free_port()).start()
        except PortTaken:
            continue
    raise RuntimeError("no free port for nginx")


def printed_urls(stdout: str) -> dict[str, str]:
    """The URLs the launcher and the app's banner printed, by label."""
    found = {}
    for label, pattern in {
        "ready": r"MCP Server ready! Access it at: (\S+)",
        "streamable": r"Streamable HTTP endpoint: (\S+)",
        "sse": r"SSE endpoint: (\S+)",
        "banner-openapi": r"OpenAPI schema:\s+(\S+)",
        "banner-discovery": r"MCP discovery:\s+(\S+)",
        "banner-card": r"Server card:\s+(\S+)",
        "banner-tools": r"Direct tool calls:\s+(\S+)",
    }.items():
        match = re.search(pattern, stdout)
        assert match, (label, stdout)
        found[label] = match.group(1)
    return found


async def call_add(url: str, transport: str) -> float:
    async with mcp_client(url, transport=transport) as client:
        return float((await client.call_tool("add", {"a": 2, "b": 3})).content[0].text)


@pytest.mark.parametrize("setup", ["wrwroxy", "direct"])
def test_every_printed_url_works_through_the_proxy(
    setup: str, hub: Hub, nginx_executable: str, tmp_path: Path
) -> None:
    hub.resources()
    if setup == "wrwroxy":
        hub.use()
        hub.wrwroxy()
    else:
        hub.use("rappture-1.9 submit-3")
    weber, app_port = free_port(), free_port()
    nginx = start_nginx(nginx_executable, tmp_path, weber, strip=setup == "wrwroxy")
    run = Launch(
        hub,
        [
            "--app",
            str(hub.app("app.py", GOOD_APP)),
            "--host",
            "127.0.0.1",
            "--weber-port",
            str(weber),
            "--port",
            str(app_port),
        ],
        hub.env(),
    )
    try:
        assert run.wait_for("MCP Server ready!"), run.stderr
        assert run.wait_for("Direct tool calls:"), run.stdout  # the app's own banner
        urls = printed_urls(run.stdout)
        assert urls["ready"] == PUBLIC_URL
        assert urls["streamable"] == PUBLIC_URL + "mcp"
        assert urls["sse"] == PUBLIC_URL + "sse"
        assert urls["banner-openapi"] == PUBLIC_URL + "openapi.json"

        def local(url: str) -> str:
            assert url.startswith(PUBLIC_ORIGIN + "/"), url
            return nginx.origin + url[len(PUBLIC_ORIGIN) :]

        assert asyncio.run(asyncio.wait_for(call_add(local(urls["streamable"]), "http"), 30)) == 5.0
        assert asyncio.run(asyncio.wait_for(call_add(local(urls["sse"]), "sse"), 30)) == 5.0
        endpoint = urljoin(urlsplit(urls["sse"]).path, first_sse_event(local(urls["sse"]))[1])
        assert endpoint.startswith(PREFIX + "messages/?session_id=")
        openapi = get_json(local(urls["banner-openapi"]))
        assert openapi["servers"] == [{"url": PUBLIC_URL.rstrip("/")}]
        status, body = post_json(local(openapi["servers"][0]["url"]) + "/tools/add", {"a": 4, "b": 5})
        assert status == 200, body
        assert float(body["result"]) == 9.0
        status, body = post_json(local(urls["banner-tools"].replace("<name>", "add")), {"a": 1, "b": 1})
        assert status == 200, body
        discovery = get_json(local(urls["banner-discovery"]))
        assert [t["endpoint"] for t in discovery["transports"]] == [PUBLIC_URL + "mcp", PUBLIC_URL + "sse"]
        card = get_json(local(urls["banner-card"]))  # the Server Card names the weber URL as its remote
        assert [r["url"] for r in card["remotes"]] == [PUBLIC_URL + "mcp", PUBLIC_URL + "sse"]
    finally:
        run.stop()
        nginx.stop()
    assert hub.survivors() == []
