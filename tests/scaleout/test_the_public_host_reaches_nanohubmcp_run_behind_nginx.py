"""``nanohubmcp run`` behind the scale-out page's nginx answers the public host name it is given.

Found by trial16 (F1): the documented set-up (backends on loopback started with ``nanohubmcp run``,
nginx forwarding the client's ``Host``) answered 421 to any real host name, and the 421 told the
operator to set ``public_url``, which the command had no way to take. Here two backends share a
real Redis behind the documented nginx block; one is given ``--public-url`` and ``--allowed-origins``
on its command line, the other ``$MCP_PUBLIC_URL`` and ``$MCP_ALLOWED_ORIGINS``; round-robin sends
consecutive requests to each. A request for the public host is served by both, the documents
advertise the public URL (its ``https`` scheme, not the ``http`` nginx spoke to the backend), a
browser on the allowed origin is served, and a name neither was given is still refused.
"""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from cluster import APP, Cluster
from nginx_weber import find_nginx
from redis_server import RedisServer
from support import installed

pytestmark = pytest.mark.timeout(120)

PUBLIC = "https://tools.example.org/"
APP_ORIGIN = "https://app.example.org"


@pytest.fixture
def public_cluster(redis_server: RedisServer, tmp_path: Path) -> Iterator[Cluster]:
    nodes = Cluster(
        installed(find_nginx(), "nginx"),
        tmp_path,
        redis_server.url,
        each=[
            (["--public-url", PUBLIC, "--allowed-origins", APP_ORIGIN], {}),
            ((), {"MCP_PUBLIC_URL": PUBLIC.rstrip("/"), "MCP_ALLOWED_ORIGINS": APP_ORIGIN}),
        ],
    )
    try:
        yield nodes
    finally:
        nodes.close()


def fetch(port: int, method: str, path: str, headers: dict[str, str], body: bytes | None = None) -> tuple[int, dict]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        connection.close()


def test_both_backends_answer_the_public_host_and_advertise_its_url(public_cluster: Cluster) -> None:
    port = public_cluster.port
    for _ in range(4):  # round-robin: each backend twice
        status, card = fetch(port, "GET", "/mcp/server-card", {"Host": "tools.example.org"})
        assert status == 200, card
        assert [remote["url"] for remote in card["remotes"]] == [f"{PUBLIC}mcp", f"{PUBLIC}sse"]
        assert card["name"] == "org.example.tools/scaleout-test"
        status, catalog = fetch(port, "GET", "/.well-known/mcp/catalog.json", {"Host": "tools.example.org"})
        assert status == 200, catalog
        assert catalog["entries"][0]["url"] == f"{PUBLIC}mcp/server-card"
    assert len(public_cluster.pids()) == 2, public_cluster.logs()

    initialize = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}).encode()
    headers = {"Host": "tools.example.org", "Origin": APP_ORIGIN, "Content-Type": "application/json",
               "Accept": "application/json, text/event-stream"}  # fmt: skip
    for _ in range(2):
        status, answer = fetch(port, "POST", "/mcp", headers, initialize)
        assert status == 200, answer
        assert answer["result"]["serverInfo"]["name"] == "scaleout-test"

    status, refused = fetch(port, "GET", "/mcp/server-card", {"Host": "elsewhere.example.net"})
    assert status == 421, refused
    assert "--public-url" in refused["error"]  # a document's refusal is {"error": message} (dc4c60b)


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("MCP_PUBLIC_URL", "ftp://tools.example.org/", "$MCP_PUBLIC_URL 'ftp://tools.example.org/' is not an http"),
        ("MCP_PUBLIC_URL", "https://tools.example.org/?a=1", "without user, query or fragment"),
        ("MCP_ALLOWED_ORIGINS", "https://app.example.org/page", "is not an origin: give scheme://host[:port]"),
        ("MCP_PATH_PREFIX", "https://tools.example.org/x", "is not a URL path: give the path alone"),
    ],
)
def test_a_bad_value_in_the_environment_is_one_line_naming_it(variable: str, value: str, message: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "nanohubmcp", "run", str(APP)],
        env={**os.environ, variable: value},
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("nanohubmcp run: error: argument --"), done.stderr
    assert message in last, done.stderr
