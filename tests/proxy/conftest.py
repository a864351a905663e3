"""Fixtures of the proxy tests: nginx as weber, a fake nanoHUB session, the app behind them.

nginx comes from the system (``scripts/install-test-system-deps`` installs it; CI runs that
script). Without it the tests are skipped on a developer machine and fail under ``CI=true``,
so a missing install step cannot pass as green.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from nginx_weber import Nginx, PortTaken, WeberRoute, find_nginx, free_port
from proxy_support import make_app_server

from nanohubmcp import MCPServer
from nanohubmcp.nanohub.proxy import ProxyInfo, detect_proxy, override

SESSION = "4242"
COOKIE = "c00kieXYZ"
FILEXFER_PORT = 38123
WEBER_PATH = f"/weber/{SESSION}/{COOKIE}/{FILEXFER_PORT % 1000}/"
HUB_HOST = "hub.test"
"""A hub that is not nanohub.org: the proxy host must come from ``hub_url``."""


@pytest.fixture(scope="session")
def nginx_executable() -> str:
    found = find_nginx()
    if found is None:
        message = "nginx is not installed: run scripts/install-test-system-deps (as root)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return found


@pytest.fixture
def session_env(tmp_path: Path) -> dict[str, str]:
    """A fake session: SESSION, SESSIONDIR and a resources file as a hub writes it.

    The file has CRLF endings, quoted values and keys the detector does not read.
    """
    sessiondir = tmp_path / "session"
    sessiondir.mkdir()
    (sessiondir / "resources").write_bytes(
        (
            f"sessionid {SESSION}\r\n"
            f'application_name "MCP weber test"\r\n'
            f'hub_url "https://{HUB_HOST}"\r\n'
            f"filexfer_port {FILEXFER_PORT}\r\n"
            f"filexfer_cookie {COOKIE}\r\n"
            "session_token s3cr3t\r\n"
        ).encode()
    )
    return {"SESSION": SESSION, "SESSIONDIR": str(sessiondir)}


@dataclass
class Weber:
    """The app behind nginx: what was detected, what the server advertises, and nginx."""

    setup: str
    detected: ProxyInfo
    info: ProxyInfo
    server: MCPServer
    nginx: Nginx

    @property
    def public_url(self) -> str:
        """The URL clients use: nginx's origin + the weber path (trailing slash)."""
        assert self.info.public_url is not None
        return self.info.public_url


StartWeber = Callable[..., Weber]


@pytest.fixture
def start_weber(nginx_executable: str, session_env: dict[str, str], tmp_path: Path) -> Iterator[StartWeber]:
    """``start_weber(setup, **server_options)`` -> :class:`Weber`.

    ``setup`` is ``"wrwroxy"`` (the proxy strips the weber path, the app serves at ``/``) or
    ``"direct"`` (the proxy passes the path on, the app serves under it). The session is
    detected from the fake session directory; the public URL is then overridden with nginx's
    loopback address (as ``override`` does for other hubs), keeping the detected path.
    ``advertise_detected=True`` keeps the detected ``https://proxy.hub.test/...`` URL instead
    (for Origin tests; its links do not resolve here).
    """
    started: list[tuple[MCPServer, Nginx]] = []

    def start(setup: str, *, advertise_detected: bool = False, **options: object) -> Weber:
        detected = detect_proxy(session_env, port=8000, kind="tool", wrwroxy=setup == "wrwroxy")
        assert detected.on_hub, detected.reason
        assert detected.public_url == f"https://proxy.{HUB_HOST}{WEBER_PATH}"
        for attempt in range(3):
            port = free_port()
            info = (
                detected
                if advertise_detected
                else override(detected, public_url=f"http://127.0.0.1:{port}{WEBER_PATH}")
            )
            server = make_app_server()
            server.start(
                host="127.0.0.1", port=0, path_prefix=info.path_prefix, public_url=info.public_url, **options
            )
            assert server.port is not None
            workdir = tmp_path / f"nginx-{setup}-{attempt}"
            workdir.mkdir()
            nginx = Nginx(
                nginx_executable, workdir, WeberRoute(WEBER_PATH, server.port, strip=setup == "wrwroxy"), port
            )
            try:
                nginx.start()
            except PortTaken:
                server.stop()
                continue
            except BaseException:
                server.stop()
                raise
            started.append((server, nginx))
            return Weber(setup, detected, info, server, nginx)
        raise RuntimeError("no free port for nginx after 3 attempts")

    yield start
    for server, nginx in started:
        nginx.stop()
        server.stop()


@pytest.fixture(params=["wrwroxy", "direct"])
def weber(request: pytest.FixtureRequest, start_weber: StartWeber) -> Weber:
    """The app behind nginx, once with the prefix stripped (wrwroxy) and once passed on (direct)."""
    return start_weber(request.param)
