"""Fixtures of the proxy tests: nginx as weber, a fake nanoHUB session, the app behind them.

nginx comes from the system (``scripts/install-test-system-deps`` installs it; CI runs that
script). Without it the tests are skipped on a developer machine and fail under ``CI=true``,
so a missing install step cannot pass as green.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from nginx_weber import Nginx, PortTaken, WeberRoute, find_nginx, free_port
from proxy_support import HUB_HOST, WEBER_PATH, StartWeber, Weber, make_app_server, write_session
from support import installed

from nanohubmcp import MCPServer
from nanohubmcp.nanohub.proxy import detect_proxy, override


@pytest.fixture(scope="session")
def nginx_executable() -> str:
    return installed(find_nginx(), "nginx")


@pytest.fixture
def session_env(tmp_path: Path) -> dict[str, str]:
    """A fake session: SESSION, SESSIONDIR and a resources file as a hub writes it.

    The file has CRLF endings, quoted values and keys the detector does not read.
    """
    return write_session(tmp_path / "session")


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
