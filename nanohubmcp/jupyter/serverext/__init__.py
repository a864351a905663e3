"""A Jupyter **server** extension: stream a notebook's MCP server through Jupyter's own URL.

On a hub, a kernel's MCP server listens on 127.0.0.1 and clients reach it only through the
Jupyter server. jupyter-server-proxy's ``proxy/<port>/`` route buffers every reply whose
request does not accept ``text/event-stream`` alone, so a Streamable HTTP call's progress
arrives with its result and a request the tool sends mid-call (elicitation, sampling) never
reaches the client in time. This extension adds the route::

    <base_url>nanohubmcp/<port>/<path>

which forwards POST, GET and DELETE to ``http://127.0.0.1:<port>/<path>`` and passes every
chunk of the reply on as it arrives. It needs Jupyter's authentication (token or login
cookie, as any Jupyter API call) and serves only ports that a kernel of this Jupyter server
registered (see :mod:`.registry`); anything else is 404.

Enabled by the ``jupyter_server_config.d/nanohubmcp.json`` file the wheel installs into the
environment's ``etc/jupyter``; it must be installed where **Jupyter Server** runs (on a hub
that may be another environment than the kernel's). ``GET <base_url>nanohubmcp/`` answers
``{"name": "nanohubmcp", "version": ...}`` (authenticated) to say it is there.

Nothing is imported from Jupyter Server until the server loads the extension.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jupyter_server.serverapp import ServerApp

__all__ = ["_jupyter_server_extension_points", "_load_jupyter_server_extension"]


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    """Where Jupyter Server finds the loader (the module itself)."""
    return [{"module": "nanohubmcp.jupyter.serverext"}]


def _load_jupyter_server_extension(serverapp: ServerApp) -> None:
    """Add the ``nanohubmcp/`` routes to ``serverapp`` and leave the marker kernels look for."""
    from .forward import install

    install(serverapp)
