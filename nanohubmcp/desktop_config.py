"""``nanohubmcp desktop-config``: the exact configuration a desktop MCP client needs on this machine.

Desktop clients (Claude Desktop, VS Code, Cursor) launch a server as a child process from a working
directory of their own choosing (often ``/``) with a bare environment, so a configuration that names
``nanohubmcp`` or a relative ``app.py`` works in the checkout and fails everywhere else. The printed
configuration names the interpreter by its absolute path (this environment's Python, which has
nanohubmcp installed) and the app file by its absolute path, and carries the environment it needs.

Shapes (each client's documented configuration file):

- ``claude`` (``claude_desktop_config.json``) and ``cursor`` (``~/.cursor/mcp.json``):
  ``{"mcpServers": {NAME: {"command": ..., "args": [...], "env": {...}}}}``
- ``vscode`` (``.vscode/mcp.json``): ``{"servers": {NAME: {"type": "stdio", "command": ..., "args": [...],
  "env": {...}}}}``

With an app file the client runs ``python -m nanohubmcp run APP --transport stdio``; with ``--url`` it
runs ``python -m nanohubmcp bridge URL`` to reach a server that is already running (a notebook's, a
nanoHUB tool's), the token travelling as ``MCP_TOKEN`` in ``env`` rather than on the command line.
A notebook on a hub shows the bridge entry for the user's desktop instead: ``python3 -m nanohubmcp
bridge URL`` (:data:`DESKTOP_PYTHON`), since the hub's Python path means nothing there.
An app whose ``server`` has ``auth=`` takes its caller's token from ``MCP_TOKEN`` over stdio (it does not
start without one), so its entry carries the token in ``env`` too when one is given.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .errors import ConfigurationError, UsageError

__all__ = ["CLIENTS", "DESKTOP_PYTHON", "DesktopLaunch", "bridge_launch", "config_for", "launch_for"]

CLIENTS = ("claude", "vscode", "cursor")
"""The clients whose configuration shape is known."""


@dataclass
class DesktopLaunch:
    """How a desktop client starts the server: ``command`` (absolute), ``args`` and ``env``;
    ``needs_token``: the app's server has ``auth=``, so it starts only with ``MCP_TOKEN`` in its ``env``."""

    name: str
    command: str
    args: list[str]
    env: dict[str, str] = field(default_factory=dict)
    needs_token: bool = False


def _load(app: Path) -> tuple[str, bool]:
    """The app's ``server.name`` (the file's stem when it has none), and whether it has ``auth=``."""
    from .nanohub.child import load_app

    with contextlib.redirect_stdout(sys.stderr):  # what the app prints must not mix with the JSON
        server = load_app(app)
    name = getattr(server, "name", None)
    return (name if isinstance(name, str) and name else app.stem), getattr(server, "auth", None) is not None


def launch_for(
    app: str | None = None,
    *,
    url: str | None = None,
    name: str | None = None,
    token: str | None = None,
    env: dict[str, str] | None = None,
) -> DesktopLaunch:
    """The launch of ``app`` over stdio, or of a bridge to ``url``; exactly one of the two.

    ``token`` goes into ``env`` as ``MCP_TOKEN`` for the bridge, and for an app whose server has
    ``auth=`` (which reads its caller's token there over stdio), over an ``MCP_TOKEN`` in ``env``.

    Raises:
        UsageError: neither or both given, ``url`` is not an http(s) URL with a host.
        ConfigurationError: the app file does not exist or defines no ``server``.
    """
    if app is None and url is None:
        raise UsageError("give an app file (served over stdio) or --url URL (bridged)")
    if app is not None and url is not None:
        raise UsageError("give an app file (served over stdio) or --url URL (bridged), not both")
    variables = dict(env or {})
    python = sys.executable  # not resolved: a virtual environment's python is a link to the base one
    if app is not None:
        path = Path(app).expanduser().resolve()
        if not path.is_file():
            from .nanohub.app_file import refuse_object_form

            refuse_object_form(str(app))
            raise ConfigurationError(f"app file {app!r} does not exist")
        found, needs_token = _load(path)
        if needs_token and token:
            variables["MCP_TOKEN"] = token
        return DesktopLaunch(
            name or found,
            python,
            ["-m", "nanohubmcp", "run", str(path), "--transport", "stdio"],
            variables,
            needs_token,
        )
    assert url is not None
    from .transports.bridge.options import endpoint_url

    url = endpoint_url(url, "--url")  # checked now, not when the desktop client first starts the bridge
    return bridge_launch(url, name, token, variables)


DESKTOP_PYTHON = "python3"
"""The command of a bridge entry for another machine (a desktop reaching a server on a hub): that
machine's Python, into which its user installed nanohubmcp, not this one's."""


def bridge_launch(
    url: str, name: str | None = None, token: str | None = None, env: dict[str, str] | None = None,
    *, elsewhere: bool = False,
) -> DesktopLaunch:
    """The launch of ``nanohubmcp bridge url`` by this Python, ``url`` taken as given (unchecked: a
    notebook's status shows its own URL with a ``<your Jupyter token>`` placeholder in it); ``token``
    goes into ``env`` as ``MCP_TOKEN``. ``elsewhere``: the entry is for another machine (this one is
    a hub, whose Python path means nothing on the user's desktop), so the command is
    :data:`DESKTOP_PYTHON`, the desktop's own Python with nanohubmcp installed."""
    variables = dict(env or {})
    if token:
        variables["MCP_TOKEN"] = token
    python = DESKTOP_PYTHON if elsewhere else sys.executable
    return DesktopLaunch(name or "nanohubmcp", python, ["-m", "nanohubmcp", "bridge", url], variables)


def config_for(launch: DesktopLaunch, client: str = "claude") -> dict[str, object]:
    """The configuration document of ``client`` (one of :data:`CLIENTS`) holding ``launch``."""
    entry: dict[str, object] = {"command": launch.command, "args": launch.args}
    if launch.env:
        entry["env"] = launch.env
    if client == "vscode":
        return {"servers": {launch.name: {"type": "stdio", **entry}}}
    if client in ("claude", "cursor"):
        return {"mcpServers": {launch.name: entry}}
    raise ConfigurationError(f"unknown client {client!r}; one of {', '.join(CLIENTS)}")


def render(launch: DesktopLaunch, client: str) -> str:
    """The configuration as the JSON text to paste."""
    return json.dumps(config_for(launch, client), indent=2)


def parse_env(pairs: list[str]) -> dict[str, str]:
    """``NAME=VALUE`` pairs as a dict.

    Raises:
        UsageError: a pair without ``=`` or with an empty name.
    """
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--env takes NAME=VALUE, not {pair!r}")
        out[key] = value
    return out


def default_token() -> str | None:
    """The token a bridge should carry when none is given: ``$MCP_TOKEN``."""
    return os.environ.get("MCP_TOKEN") or None
