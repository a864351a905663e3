"""``/readyz`` is 503 with ``Retry-After`` while the shared state store is unreachable, and
``ready`` again once it answers; ``/healthz`` stays 200 throughout (the process is alive: a
liveness probe must not restart it for Redis's outage) (trial16 F12)."""

from __future__ import annotations

import httpx
import pytest
from redis_server import RedisServer
from support import serve, wait_until

from nanohubmcp import MCPServer

pytestmark = pytest.mark.timeout(120)


def test_readiness_is_503_while_redis_is_away_and_liveness_stays_200(redis_server: RedisServer) -> None:
    server = MCPServer("ready", state_url=redis_server.url)
    with serve(server) as url:

        def ready() -> int:
            return httpx.get(url + "readyz", timeout=10).status_code

        wait_until(lambda: ready() == 200, "ready with Redis up")
        redis_server.stop()
        wait_until(lambda: ready() == 503, "not ready with Redis away")
        away = httpx.get(url + "readyz", timeout=10)
        assert away.headers["Retry-After"].isdigit()
        assert away.text == "shared state store unreachable\n"
        assert httpx.get(url + "healthz", timeout=10).text == "ok\n"
        redis_server.start()
        wait_until(lambda: ready() == 200, "ready again once Redis is back")
