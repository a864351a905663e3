"""Decide where ``start_mcp`` runs the app and wrwroxy: a function of the detected set-up (pure, but for
picking a free port when port 0 is asked for).

Rules (``W`` is the weber port, 8000 on nanoHUB; ``--host`` is the address of whichever
process weber connects to):

======================  ==================================  ==================================
set-up                  app                                 ``--port``
======================  ==================================  ==================================
off-hub (local)         ``--host``:``--port`` (default      honoured
                        ``$MCP_PORT`` or 8000), at ``/``
tool + wrwroxy          127.0.0.1:``--port`` (default       honoured unless it is ``W``
                        W+1), at ``/``; wrwroxy on          (wrwroxy needs it): then W+1
                        ``--host``:W forwards to it
tool, no wrwroxy        ``--host``:W under the weber path   not honoured: weber forwards
                                                            only to W
Jupyter                 ``--host`` (default 127.0.0.1):     honoured
                        ``--port`` (default W+1), at ``/``
======================  ==================================  ==================================

A requested port 0 (``--port 0``, ``MCP_PORT=0``) means any free port wherever a port is honoured:
the plan holds the port picked (never ``W``), so the URLs printed and the Jupyter route
``proxy/<port>/`` name the real one. Without wrwroxy it is not honoured, like any other port.

Whenever a requested port cannot be used, :attr:`LaunchPlan.notices` says why.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial

from nanohubmcp.errors import ConfigurationError
from nanohubmcp.nanohub.proxy import ProxyInfo, detect_proxy
from nanohubmcp.nanohub.supervisor import free_port
from nanohubmcp.nanohub.wrwroxy import wrwroxy_command

__all__ = ["DEFAULT_PORT", "WEBER_PORT", "LaunchPlan", "plan_launch"]

WEBER_PORT = 8000
"""The port weber forwards to inside a nanoHUB tool session."""
DEFAULT_PORT = 8000
"""The app's port off-hub when neither ``--port`` nor ``$MCP_PORT`` is given."""


@dataclass(frozen=True)
class LaunchPlan:
    """What to start and what to print.

    Attributes:
        info: the proxy set-up (public URL, prefix, mode) the app is started with.
        app_host: the address the app binds.
        app_port: the port the app binds.
        wrwroxy_argv: the command that starts wrwroxy, or None.
        wrwroxy_host: the address wrwroxy binds (probe it there), or None.
        wrwroxy_port: the port wrwroxy binds, or None.
        notices: one line per thing the user asked for that the plan changed, and why.
    """

    info: ProxyInfo
    app_host: str
    app_port: int
    wrwroxy_argv: list[str] | None = None
    wrwroxy_host: str | None = None
    wrwroxy_port: int | None = None
    notices: tuple[str, ...] = ()

    @property
    def local_url(self) -> str:
        """``http://host:port/`` of the outward-facing listener, wildcards shown as loopback."""
        host = self.wrwroxy_host if self.wrwroxy_argv else self.app_host
        port = self.wrwroxy_port if self.wrwroxy_argv else self.app_port
        # wrwroxy_host/_port are set whenever wrwroxy_argv is
        assert host is not None
        assert port is not None
        shown = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "[::1]"}.get(host, host)
        if ":" in shown and not shown.startswith("["):
            shown = f"[{shown}]"
        return f"http://{shown}:{port}{self.info.path_prefix or '/'}"


def plan_launch(
    environ: Mapping[str, str],
    *,
    host: str | None,
    port: int | None,
    port_source: str = "--port",
    weber_port: int = WEBER_PORT,
    wrwroxy_version: str | None = None,
    debug: bool = False,
    read_file: Callable[[str], str] | None = None,
    pick_port: Callable[[str], int] = free_port,
) -> LaunchPlan:
    """Return the :class:`LaunchPlan` for this environment and these requests.

    Args:
        environ: the environment :func:`~nanohubmcp.nanohub.proxy.detect_proxy` reads.
        host: ``--host``, or None for the default: 127.0.0.1, except in a hub tool session,
            where weber reaches the listener from outside (0.0.0.0).
        port: the requested app port (``--port`` or ``$MCP_PORT``), or None; 0: any free port,
            picked with ``pick_port`` where the port is honoured.
        port_source: how to name the request in notices (``"--port"``, ``"MCP_PORT"``).
        weber_port: the port weber forwards to.
        wrwroxy_version: the wrwroxy module to use in a tool session, or None for none.
        debug: start wrwroxy with ``--stream-log``.
        read_file: passed to ``detect_proxy`` (None: read the real file).
        pick_port: ``host -> port`` free on that host, for a request of 0 (default: ask the system).

    Raises:
        ConfigurationError: port 0 was asked for and no free port can be had on the app's host.
    """
    detect = partial(detect_proxy, environ, read_file=read_file)

    def app_port_for(app_host: str, default: int) -> int:
        if port is None:
            return default
        return port if port != 0 else _any_port(pick_port, app_host, avoid=weber_port)

    probe = detect(port=port or DEFAULT_PORT)
    if not probe.on_hub:
        app_host = host or "127.0.0.1"
        return LaunchPlan(info=probe, app_host=app_host, app_port=app_port_for(app_host, DEFAULT_PORT))

    if probe.mode == "jupyter":
        app_host = host or "127.0.0.1"
        app_port = app_port_for(app_host, weber_port + 1)
        info = detect(port=app_port, kind="jupyter")
        return LaunchPlan(info=info, app_host=app_host, app_port=app_port)

    outward_host = host or "0.0.0.0"
    if wrwroxy_version is None:
        notices: tuple[str, ...] = ()
        if port is not None and port != weber_port:
            asked = f"{port} (any free port)" if port == 0 else str(port)
            notices = (
                f"{port_source} {asked} cannot be honoured: without wrwroxy, weber forwards only to port "
                f"{weber_port}, so the app serves there under the weber path",
            )
        info = detect(port=weber_port, kind="tool")
        return LaunchPlan(info=info, app_host=outward_host, app_port=weber_port, notices=notices)

    notices = ()
    app_port = weber_port + 1 if port == weber_port else app_port_for("127.0.0.1", weber_port + 1)
    if port == weber_port:
        notices = (
            f"{port_source} {port} cannot be honoured: wrwroxy listens on {weber_port} (the port weber "
            f"forwards to), so the app runs behind it on {app_port}",
        )
    info = detect(port=weber_port, kind="tool", wrwroxy=True)
    argv = wrwroxy_command(
        wrwroxy_version,
        forward_port=app_port,
        listen_port=weber_port,
        listen_host=outward_host,
        forward_host="127.0.0.1",
        debug=debug,
    )
    return LaunchPlan(
        info=info,
        app_host="127.0.0.1",
        app_port=app_port,
        wrwroxy_argv=argv,
        wrwroxy_host=outward_host,
        wrwroxy_port=weber_port,
        notices=notices,
    )


_PICKS = 8
"""How many ports :func:`_any_port` asks for before it gives up (the system hands out ``avoid`` rarely)."""


def _any_port(pick_port: Callable[[str], int], host: str, *, avoid: int) -> int:
    """A free port on ``host`` other than ``avoid`` (the weber port, which wrwroxy or Jupyter holds)."""
    try:
        for _ in range(_PICKS):
            picked = pick_port(host)
            if picked != avoid:
                return picked
    except OSError as exc:
        raise ConfigurationError(f"cannot find a free port on {host}: {exc.strerror or exc}") from None
    raise ConfigurationError(f"cannot find a free port on {host} other than {avoid}")
