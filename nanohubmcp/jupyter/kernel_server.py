"""``server.run()`` in a notebook: serve in the background, re-running the cell replaces the old server.

Scripts end with ``server.run(port=8000)``, which blocks. Pasted into a notebook that would
freeze the kernel, and other MCP libraries fail there with "event loop is already running".
:func:`run_in_kernel` is what ``run()`` should do inside a kernel: serve on a thread of its own
(like ``server.start()``), bound to 127.0.0.1 unless a host is given, and return.

Re-running the cell builds a *new* ``MCPServer``, so before it starts, the servers an earlier
``server.run()`` started are stopped when either

- they have the same **name** (``MCPServer("demo")``), whatever their port: a re-run keeps the
  name, so editing ``port=8617`` into ``port=8618`` leaves no old server behind on 8617; or
- they hold the requested **port**, so the port is not "already in use" by the notebook's own
  older server.

To serve two servers from ``server.run()`` at once, give them different names. Only servers
started through :func:`run_in_kernel` are replaced; the ``%%mcp_tool`` session's server and
servers started with ``server.start()`` are never stopped behind the user's back (a port one of
them holds is reported as busy).

The kernel's exit (JupyterLab's "Shut Down Kernel") stops them as it stops the ``%%mcp_tool`` server, by
the same hook and within the same bound (:mod:`.kernel_exit`): a call still running is answered that the
server is stopping (REST: 503) and its provenance record is written.

The JupyterLab panel shows the latest server started here when the notebook has no
``%load_ext nanohubmcp`` session (:func:`nanohubmcp.jupyter.comm.follow`, which subscribes to
nothing until a panel listens).
"""

from __future__ import annotations

import sys
import threading
from typing import TYPE_CHECKING, Any

from ..processes.ports import resolve_port
from . import kernel_exit, routes
from .display import StatusView, first_line
from .hub import HubView, detect_hub
from .tokens import notebook_token

if TYPE_CHECKING:
    from ..serving.servable import Servable  # (what serving from a kernel uses of the server: an MCPServer)


__all__ = ["KERNEL_HOST", "KernelRun", "run_in_kernel"]


KERNEL_HOST = "127.0.0.1"
"""Default interface inside a kernel: private to the machine (a hub's proxy reaches it there)."""

# Strong references: a running server must stay reachable to be stopped, even after the cell
# rebinds `server` (its serving thread keeps the old one alive, unseen). Stopped ones are pruned.
_SERVED: list[Servable] = []
_LOCK = threading.Lock()


def _status(server: Servable, host: str, hub: HubView | None = None) -> dict[str, Any]:
    url = server.url
    local = f"http://{host}:{server.port}/" if server.port else url
    tools = [
        {
            "name": t.name,
            "description": first_line(t.description),
            "runs": "job" if t.background else "server",
            "cell": None,
        }
        for t in server.runtime.tools.values()
    ]
    runtime = server.runtime
    return {
        "name": server.name,
        "version": server.version,
        "running": server.running,
        "mode": "thread",
        "host": host,
        "port": server.port,
        "local_url": local,
        "public_url": url,
        "mcp_url": f"{url}mcp" if url else None,
        "token": server.token if server.running else None,
        "hub": bool(hub is not None and hub.public_url),
        "hub_reason": hub.reason if hub is not None else "",
        "streaming": hub.streaming if hub is not None else "",
        "jupyter_token": bool(hub is not None and hub.jupyter_token),
        "tools": tools,
        "resources": [r.uri for r in runtime.resources.values()]
        + [t.uri_template for t in runtime.templates.values()],
        "prompts": [p.name for p in runtime.prompts.values()],
    }


class KernelRun:
    """A server :func:`run_in_kernel` started, as the notebook's status and the panel show it.

    Args:
        server: the ``MCPServer``.
        host: the interface it was asked to bind.
        hub: the nanoHUB view found when it started (None when ``public_url`` was given).
    """

    def __init__(self, server: Servable, host: str, hub: HubView | None = None) -> None:
        self.server = server
        self.host = host
        self.hub = hub

    def status(self) -> dict[str, Any]:
        """A ``KernelSession.status()``-shaped snapshot (mode ``"thread"``; no cells)."""
        return _status(self.server, self.host, self.hub)


def run_in_kernel(
    server: Servable,
    host: str | None = None,
    port: int | str | None = None,
    *,
    quiet: bool = False,
    **options: Any,
) -> Any:
    """Serve ``server`` in the background from a notebook cell and return it.

    First stops the earlier ``run()`` servers it replaces: those of the same name (any port)
    and the one holding the requested port (see the module docstring).

    Args:
        server: an ``MCPServer``.
        host: interface; None = 127.0.0.1 (private to the machine, reachable through the
            hub's proxy).
        port: as for ``run()`` (None: ``$MCP_PORT`` or 8000; 0: any free port).
        quiet: show no status.
        **options: the other ``start()`` options (``path_prefix``, ``public_url``, ``token``...).
            With no ``token``, no ``auth`` on the server and no ``$MCP_TOKEN``, clients must
            send a token generated here (``print(server.token)`` shows it; the status does not),
            as Jupyter's own server does.
    Returns:
        ``server``, now serving.
    Raises:
        ConfigurationError: the port is taken by something else than a server this function
            started (the message says which).
    """
    host = host or KERNEL_HOST
    requested = resolve_port(port)
    if options.get("token") is None and server.auth is None:
        # As Jupyter's own server: loopback is not private on a shared login node. One token per
        # server name for the kernel's life, so re-running the cell keeps clients working.
        options["token"] = notebook_token(None, f"run-{server.name}") or ""
    with _LOCK:
        for old in _replaced_by(server, requested):
            old.stop()
        server.start(host=host, port=requested, quiet=True, loop="thread", **options)
        hub = None
        if not options.get("public_url"):
            # On a hub the URL clients use is the weber route to this port, known once bound.
            bound = server.port or requested  # serving: the port is known
            hub = detect_hub(bound)
            if hub.public_url:
                port = bound
                server.stop()
                server.start(
                    host=host, port=port, quiet=True, loop="thread", **{**options, "public_url": hub.public_url}
                )
        _SERVED.append(server)
        kernel_exit.stop_at_exit(server, lambda within: kernel_exit.stop_server(server, within))
    routes.follow(server)
    served = KernelRun(server, host, hub)
    _tell_the_panel(served)
    if not quiet:
        _show(served)
    return server


def _replaced_by(server: Servable, port: int) -> list[Servable]:
    """The earlier ``run()`` servers ``server`` replaces (same name, or holding ``port``); forgets them, and
    the stopped ones (the kernel's exit no longer stops them either).

    Port 0 never collides: "any free port" cannot be held by anyone. Call with the lock held.
    """
    running = [s for s in _SERVED if s is not server and s.running]
    gone = [s for s in running if s.name == server.name or (port and s.port == port)]
    for forgotten in (s for s in _SERVED if s not in running or s in gone):
        kernel_exit.forget(forgotten)
    _SERVED[:] = [s for s in running if s not in gone]
    return gone


def _tell_the_panel(served: KernelRun) -> None:
    """Let the JupyterLab panel follow ``served`` (inside a kernel; elsewhere nothing happens)."""
    if "ipykernel" not in sys.modules:  # called outside a kernel: no IPython import, no panel
        return
    from IPython import get_ipython

    from . import comm

    comm.follow(get_ipython(), served)


def _show(served: KernelRun) -> None:
    from IPython.display import display

    display(StatusView(served.status(), style="script"))
