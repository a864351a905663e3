"""The kernel's side of the Jupyter server extension: register our ports, and ask whether it runs.

A notebook's MCP server listens on 127.0.0.1 inside the hub; clients reach it through the
Jupyter server that launched the kernel. Two routes lead there:

- ``<Jupyter URL>proxy/<port>/`` (jupyter-server-proxy): buffers a reply unless the request
  accepts ``text/event-stream`` alone, so a Streamable HTTP call's progress arrives with its
  result and a request the tool sends mid-call (elicitation, sampling) cannot be answered;
- ``<Jupyter URL>nanohubmcp/<port>/`` (this package's server extension,
  :mod:`nanohubmcp.jupyter.serverext`): streams every reply.

:func:`follow` keeps a registration file for each port a kernel's server listens on (the
extension forwards only to registered ports of running kernels); :func:`extension_running`
reads the marker the extension leaves in the runtime directory of the Jupyter server process
that launched this kernel (``JPY_PARENT_PID``); :func:`choose_route` picks the URL the status
and ``%mcp url`` show. Both files are described in :mod:`nanohubmcp.jupyter.serverext.registry`.
Nothing here imports Jupyter Server; outside a Jupyter-launched kernel every function is a no-op.
"""

from __future__ import annotations

import os
import sys
import threading
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .serverext import registry

if TYPE_CHECKING:
    from ..server.wire.events import EventBus


class Followed(Protocol):
    """What :func:`follow` reads of a server (an ``MCPServer``)."""

    @property
    def events(self) -> EventBus: ...

    @property
    def running(self) -> bool: ...

    @property
    def port(self) -> int | None: ...

__all__ = [
    "LIMITED", "choose_route", "configured_note", "extension_running", "follow", "jupyter_marker", "kernel_place",
]

LIMITED = (
    "streaming limited: the Jupyter server has no nanohubmcp extension, and its proxy/<port>/ route "
    "(jupyter-server-proxy) holds a Streamable HTTP reply until the call ends, so progress arrives with "
    "the result and questions to the client mid-call (elicitation, sampling) time out. Install this "
    "nanohub-mcp 1.0 (from its checkout or its wheel: 'pip install nanohub-mcp' gives 0.4.x, which has no "
    "extension) into the Jupyter server's environment and restart that server ('jupyter server extension "
    "list' run there shows it; docs: getting-started/nanohub.md, 'Streaming through Jupyter'), or connect "
    "through 'nanohubmcp bridge <URL>' or the legacy SSE endpoint, which stream."
)
"""The caveat shown with a jupyter-server-proxy URL."""

_FOLLOWED: weakref.WeakSet[Followed] = weakref.WeakSet()
_LOCK = threading.Lock()


def kernel_place() -> tuple[Path, str] | None:
    """``(runtime directory, kernel id)`` of this kernel when Jupyter Server launched it, else None.

    Read from the kernel's connection file, ``<runtime dir>/kernel-<id>.json``.
    """
    if "ipykernel" not in sys.modules:  # not in a kernel: import nothing
        return None
    try:
        from ipykernel.connect import get_connection_file

        path = Path(get_connection_file())
    except Exception:  # not a running kernel app (plain IPython, a test harness)
        return None
    kernel_id = registry.kernel_id_of(path)
    return (path.parent, kernel_id) if kernel_id else None


def extension_running() -> bool:
    """True when the Jupyter server that launched this kernel has loaded the extension."""
    return jupyter_marker() is not None


def jupyter_marker() -> dict[str, Any] | None:
    """The extension's marker of the Jupyter server that launched this kernel, else None."""
    place = kernel_place()
    parent = os.environ.get("JPY_PARENT_PID", "")
    if place is None or not parent.isdigit():
        return None
    return registry.read_marker(place[0], int(parent))


def choose_route(proxy_url: str, port: int) -> tuple[str, str, bool]:
    """The URL to advertise for a jupyter-server-proxy URL ``…/proxy/<port>/``, a caveat, and
    whether a client must put Jupyter's token in that URL.

    Returns ``(…/nanohubmcp/<port>/, "", token)`` when the extension runs in this kernel's Jupyter
    server (``token``: that server requires one, as its marker says), else ``(proxy_url, LIMITED,
    False)``.
    """
    suffix = f"proxy/{port}/"
    marker = jupyter_marker() if proxy_url.endswith(suffix) else None
    if marker is not None:
        return proxy_url[: -len(suffix)] + f"{registry.ROUTE}/{port}/", "", marker.get("token") is not False
    return proxy_url, LIMITED, False


def configured_note(public_url: str, port: int) -> str:
    """The caveat for a configured ``public_url`` (other hubs): about streaming, when it is a
    jupyter-server-proxy route to ``port`` seen from a Jupyter-launched kernel; else ""."""
    suffix = f"/proxy/{port}/"
    url = public_url.rstrip("/") + "/"
    if not url.endswith(suffix) or kernel_place() is None:
        return ""
    if extension_running():
        streaming = url[: -len(suffix)] + f"/{registry.ROUTE}/{port}/"
        return (
            f"streaming limited on this proxy/{port}/ URL (jupyter-server-proxy buffers Streamable HTTP replies); "
            f"this Jupyter server runs the nanohubmcp extension: set NanohubMCP.public_url = '{streaming}' to stream"
        )
    return LIMITED


def follow(server: Followed) -> None:
    """Keep a registration file for ``server``'s port while it serves (in a Jupyter kernel only).

    Safe to call again for the same server; the file goes when the server stops.
    """
    place = kernel_place()
    if place is None:
        return
    with _LOCK:
        if server in _FOLLOWED:
            return
        _FOLLOWED.add(server)
    runtime_dir, kernel_id = place
    held: dict[str, Path] = {}

    def on_event(event: str, data: dict[str, Any]) -> None:
        port = data.get("port")
        if event == "server_started" and isinstance(port, int) and port > 0:
            path = registry.port_path(runtime_dir, port)
            registry.write_json(
                path, {"version": registry.FORMAT, "port": port, "kernel_id": kernel_id, "pid": os.getpid()}
            )
            held["path"] = path
        elif event == "server_stopped" and "path" in held:
            registry.remove_if_owned(held.pop("path"), "kernel_id", kernel_id)

    server.events.subscribe(on_event, ["server_started", "server_stopped"])
    if server.running and server.port:
        on_event("server_started", {"port": server.port})
