"""Whether this kernel runs on a nanoHUB session, and the weber URL a port is reached at from outside.

Kept apart from the notebook session (which builds an ``MCPServer``) so ``server.run()`` in a
kernel can ask it without importing the facade back.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import routes
from .serverext.registry import ROUTE


@dataclass(frozen=True)
class HubView:
    """Where the server is reached from outside: ``public_url`` None = this machine only.

    ``streaming`` is a caveat for the status ("" when the route streams every reply);
    ``jupyter_token``: the URL is the Jupyter server extension's route and that Jupyter server
    requires its token, which a client puts in the URL (``?token=<Jupyter token>``).
    """

    public_url: str | None
    reason: str
    streaming: str = ""
    jupyter_token: bool = False


def detect_hub(port: int) -> HubView:
    """The nanoHUB weber URL for ``port`` when this kernel runs on a hub (never raises).

    In a notebook on a hub that is the Jupyter server's streaming ``nanohubmcp/<port>/`` route
    when its server extension runs, else jupyter-server-proxy's ``proxy/<port>/`` with the
    caveat (see :mod:`nanohubmcp.jupyter.routes`).
    """
    try:
        from ..nanohub.proxy import detect_proxy

        info = detect_proxy(port=port)
    except Exception as exc:  # the detector is advisory: a failure means "local"
        return HubView(None, f"proxy detection failed: {exc}")
    if not info.on_hub or info.public_url is None:
        return HubView(None, info.reason)
    if info.mode != "jupyter":
        return HubView(info.public_url, info.reason)
    url, caveat, jupyter_token = routes.choose_route(info.public_url, port)
    reason = info.reason if caveat else info.reason.replace(f"proxy/{port}/", f"{ROUTE}/{port}/ (streams)")
    return HubView(url, reason, caveat, jupyter_token)
