"""The bearer token a notebook's server requires.

As Jupyter's own server does, a server started from a notebook requires a token by default: on
a shared login node, 127.0.0.1 is reachable by every user of the machine. The token is
generated once per server and kept for the kernel's life, so re-running a cell or restarting
the server after a ``%config`` change keeps connected clients working.
"""

from __future__ import annotations

import os
import secrets

from ..auth.verifiers import ENV_SOURCE, MCP_TOKEN_ENV, checked_token

_GENERATED: dict[str, str] = {}


def notebook_token(configured: str | None, key: str) -> str | None:
    """The token for the server ``key`` names; None when authorization is turned off.

    Args:
        configured: the setting (``NanohubMCP.token`` or ``run(token=...)``): a token, ``""``
            (off), or None for the default: ``$MCP_TOKEN`` when set (set and empty: off), else a
            random token generated for ``key`` on first use.
        key: which server the generated token belongs to.

    Raises:
        ConfigurationError: ``$MCP_TOKEN`` holds a token no client can send
            (:func:`~nanohubmcp.auth.verifiers.checked_token`).
    """
    if configured is not None:
        return configured or None
    from_env = os.environ.get(MCP_TOKEN_ENV)
    if from_env is not None:  # checked here: the server gets it as token=, which a refusal would name
        return checked_token(from_env, ENV_SOURCE) if from_env else None
    return _GENERATED.setdefault(key, secrets.token_urlsafe(32))
