"""Work out how a server in a nanoHUB session is reached from outside: a pure detector.

On nanoHUB a tool session's web port is published by the hub's *weber* proxy at::

    https://proxy.<hub host>/weber/<session>/<filexfer_cookie>/<filexfer_port % 1000>/

which forwards to port 8000 inside the session. Three set-ups follow from that:

``"tool"``
    the MCP server itself listens on 8000 and serves under the weber path (weber does
    not strip it), so ``path_prefix`` is the weber path.
``"tool-wrwroxy"``
    wrwroxy listens on 8000, strips the weber path and forwards to the app (8001), so
    the app serves at ``/`` (``path_prefix == ""``) but advertises the weber URL.
``"jupyter"``
    the weber path reaches the notebook's Jupyter Server, whose jupyter-server-proxy
    route ``proxy/<port>/`` (prefix stripped) forwards to ``localhost:<port>``: the app
    serves at ``/`` and advertises ``<weber URL>proxy/<port>/``.

Off-hub the mode is ``"local"``: no public URL, no prefix, and :attr:`ProxyInfo.reason`
names the missing piece.

Facts used (as nanoHUB sessions provide them, and as the 0.4.x launcher and notebook magics read them):

* a session needs ``SESSION`` (or ``SESSION_ID``) and ``SESSIONDIR`` (or ``SESSION_DIR``),
  both non-empty;
* ``$SESSIONDIR/resources`` holds ``key value`` lines; the keys read here are ``hub_url``,
  ``filexfer_port`` (an integer; weber uses it modulo 1000) and ``filexfer_cookie``.
  Values may be quoted; other keys, blank lines, ``#`` comments and CRLF endings are
  tolerated;
* the proxy host is ``proxy.`` + the host of ``hub_url`` (never a hard-coded hub).

Jupyter detection (``kind="auto"``): the process counts as a Jupyter kernel when
``JPY_PARENT_PID`` or ``JPY_SESSION_NAME`` is set. jupyter_client puts
``JPY_PARENT_PID`` into the environment of every kernel it launches on POSIX, and
Jupyter Server 2 adds ``JPY_SESSION_NAME`` (the notebook's path); programs started from a
notebook (``!start_mcp ...``) inherit them, which is right: inside nanoHUB's Jupyter tool
the weber port belongs to Jupyter Server, so the only way in is its ``proxy/<port>/``
route. ``kind="tool"`` or ``kind="jupyter"`` overrides the guess.

This module does no I/O of its own except through ``read_file`` and never raises for a
missing or malformed session: it reports it in ``reason``. Only arguments that can never
be right (a bad ``kind`` or ``port``, an unusable override) raise
:class:`~nanohubmcp.errors.ConfigurationError`.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from nanohubmcp.errors import ConfigurationError
from nanohubmcp.transports.public_url import checked_public_url
from nanohubmcp.transports.url_path import normal_path

__all__ = ["JUPYTER_MARKERS", "KINDS", "MODES", "ProxyInfo", "detect_proxy", "override", "read_resources"]

MODES = ("local", "tool", "tool-wrwroxy", "jupyter")
"""Every value :attr:`ProxyInfo.mode` can take."""
KINDS = ("auto", "tool", "jupyter")
"""Accepted values of ``detect_proxy(kind=...)``."""
JUPYTER_MARKERS = ("JPY_PARENT_PID", "JPY_SESSION_NAME")
"""Environment variables whose presence marks a Jupyter kernel (or a program it started)."""

_DEFAULT_PORTS = {"http": 80, "https": 443}
_SESSION_VARS = ("SESSION", "SESSION_ID")
_SESSIONDIR_VARS = ("SESSIONDIR", "SESSION_DIR")
# Tokens that go into the weber path verbatim: refuse anything that would change the path.
_PATH_TOKEN = re.compile(r"^[A-Za-z0-9._~-]+\Z")


@dataclass(frozen=True)
class ProxyInfo:
    """Where the server listens and what it advertises; the result of :func:`detect_proxy`.

    Attributes:
        on_hub: True when a complete nanoHUB session was found.
        mode: ``"local"``, ``"tool"``, ``"tool-wrwroxy"`` or ``"jupyter"`` (see the module doc).
        public_url: the URL clients use, ending in ``/``; None off-hub. Example:
            ``"https://proxy.nanohub.org/weber/4242/c00kie/123/"``.
        path_prefix: the path the server must serve under: the weber path
            (``"/weber/4242/c00kie/123/"``) in ``"tool"`` mode, ``""`` otherwise.
        public_origin: ``scheme://host`` of the proxy, for the Origin allow-list; None off-hub.
        session: the session id, or None.
        hub_url: ``hub_url`` from the resources file as read (quotes removed), or None.
        reason: one line: what was found, or why this is not a hub session.
    """

    on_hub: bool
    mode: str
    public_url: str | None
    path_prefix: str
    public_origin: str | None
    session: str | None
    hub_url: str | None
    reason: str


def _read_text(path: str) -> str:
    return Path(path).read_text(encoding="utf-8", errors="replace")


def read_resources(text: str) -> dict[str, str]:
    """Parse a nanoHUB ``resources`` file into ``{key: value}``.

    Each non-blank line not starting with ``#`` is ``key value``: the key is the first
    whitespace-separated token, the value the rest of the line with surrounding
    whitespace and one pair of matching single or double quotes removed. A key with no
    value maps to ``""``; a repeated key keeps its last value. CRLF and CR endings work.

    Example:
        >>> read_resources('hub_url "https://nanohub.org"\\r\\nfilexfer_port 38123\\r\\n')
        {'hub_url': 'https://nanohub.org', 'filexfer_port': '38123'}
    """
    values: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, *rest = line.split(None, 1)
        value = rest[0].strip() if rest else ""
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1].strip()
        values[key] = value
    return values


def _first(environ: Mapping[str, str], names: tuple[str, ...]) -> str | None:
    for name in names:
        value = environ.get(name, "").strip()
        if value:
            return value
    return None


def _proxy_origin(hub_url: str) -> str | None:
    """``https://proxy.<host of hub_url>``, or None when hub_url names no host."""
    parts = urlsplit(hub_url if "//" in hub_url else "//" + hub_url)
    host = parts.hostname
    if not host:
        return None
    return f"https://proxy.{host}"


def _local(reason: str, session: str | None = None, hub_url: str | None = None) -> ProxyInfo:
    return ProxyInfo(
        on_hub=False,
        mode="local",
        public_url=None,
        path_prefix="",
        public_origin=None,
        session=session,
        hub_url=hub_url,
        reason=reason,
    )


def detect_proxy(
    environ: Mapping[str, str] | None = None,
    *,
    port: int,
    kind: str = "auto",
    read_file: Callable[[str], str] | None = None,
    wrwroxy: bool = False,
) -> ProxyInfo:
    """Detect a nanoHUB session and compute the public URL and path prefix.

    Args:
        environ: the environment to read; ``os.environ`` when None.
        port: the port the MCP server will listen on (1-65535); used only in Jupyter
            mode, where it becomes the ``proxy/<port>/`` route.
        kind: ``"auto"`` (Jupyter if a marker in :data:`JUPYTER_MARKERS` is set, else a
            tool session), ``"tool"`` or ``"jupyter"`` to force one.
        read_file: ``path -> text`` used to read ``$SESSIONDIR/resources``; may raise
            ``OSError``. None reads the file (UTF-8, undecodable bytes replaced).
        wrwroxy: True when wrwroxy will sit on the weber port in front of the app; a tool
            session then becomes ``"tool-wrwroxy"`` with ``path_prefix == ""``.

    Returns:
        A :class:`ProxyInfo`; ``mode == "local"`` with the reason when the session or
        its resources are missing or incomplete.

    Raises:
        ConfigurationError: ``kind`` is not in :data:`KINDS` or ``port`` is out of range.

    Example:
        >>> env = {"SESSION": "4242", "SESSIONDIR": "/tmp/s"}
        >>> text = "hub_url https://nanohub.org/\\nfilexfer_port 38123\\nfilexfer_cookie c00kie\\n"
        >>> detect_proxy(env, port=8000, read_file=lambda p: text).public_url
        'https://proxy.nanohub.org/weber/4242/c00kie/123/'
    """
    if kind not in KINDS:
        raise ConfigurationError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    if isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65536:
        raise ConfigurationError(f"port must be an integer from 1 to 65535, not {port!r}")
    env = os.environ if environ is None else environ

    session = _first(env, _SESSION_VARS)
    if session is None:
        return _local("not a nanoHUB session: SESSION (or SESSION_ID) is not set")
    sessiondir = _first(env, _SESSIONDIR_VARS)
    if sessiondir is None:
        return _local("not a nanoHUB session: SESSIONDIR (or SESSION_DIR) is not set", session)

    path = os.path.join(sessiondir, "resources")
    try:
        resources = read_resources((read_file or _read_text)(path))
    except OSError as exc:
        return _local(f"cannot read {path}: {exc.strerror or exc}", session)

    hub_url = resources.get("hub_url") or None
    missing = [k for k in ("hub_url", "filexfer_port", "filexfer_cookie") if not resources.get(k)]
    if missing:
        return _local(f"{path} has no {', '.join(missing)}", session, hub_url)
    assert hub_url is not None  # checked just above; tells type checkers too
    origin = _proxy_origin(hub_url)
    if origin is None:
        return _local(f"hub_url {hub_url!r} in {path} names no host", session, hub_url)
    try:
        filexfer_port = int(resources["filexfer_port"])
    except ValueError:
        return _local(
            f"filexfer_port {resources['filexfer_port']!r} in {path} is not an integer", session, hub_url
        )
    cookie = resources["filexfer_cookie"]
    for label, token in (("SESSION", session), ("filexfer_cookie", cookie)):
        if not _PATH_TOKEN.match(token):
            return _local(f"{label} {token!r} has characters not allowed in the weber path", session, hub_url)

    weber_path = f"/weber/{session}/{cookie}/{filexfer_port % 1000}/"
    jupyter = kind == "jupyter" or (kind == "auto" and any(env.get(m) for m in JUPYTER_MARKERS))
    if jupyter:
        return ProxyInfo(
            on_hub=True,
            mode="jupyter",
            public_url=f"{origin}{weber_path}proxy/{port}/",
            path_prefix="",
            public_origin=origin,
            session=session,
            hub_url=hub_url,
            reason=f"nanoHUB Jupyter session {session}: weber -> Jupyter Server -> proxy/{port}/",
        )
    mode = "tool-wrwroxy" if wrwroxy else "tool"
    return ProxyInfo(
        on_hub=True,
        mode=mode,
        public_url=origin + weber_path,
        path_prefix="" if wrwroxy else weber_path,
        public_origin=origin,
        session=session,
        hub_url=hub_url,
        reason=f"nanoHUB tool session {session}: weber -> "
        + ("wrwroxy (strips the weber path) -> app" if wrwroxy else "app serving under the weber path"),
    )


def _normalize_prefix(prefix: str) -> str:
    """``""`` stays ``""``; anything else becomes ``/a/b/`` (one leading and trailing slash), an escaped
    unreserved character as itself (``/%41pp`` → ``/App/``: :func:`~nanohubmcp.transports.url_path.normal_path`)."""
    stripped = normal_path(prefix.strip()).strip("/")
    return f"/{stripped}/" if stripped else ""


def override(info: ProxyInfo, public_url: str | None = None, path_prefix: str | None = None) -> ProxyInfo:
    """Return ``info`` with a configured public URL and/or path prefix (for other hubs).

    Args:
        info: what :func:`detect_proxy` found.
        public_url: an absolute ``http``/``https`` URL; a trailing ``/`` is added, the host
            lower-cased and a default port (80, 443) dropped, as browsers write ``Origin``;
            :attr:`ProxyInfo.public_origin` is recomputed from it. None keeps the detected one.
        path_prefix: the path to serve under; normalised to ``""`` or ``/a/b/``. None
            keeps the detected one.

    Raises:
        ConfigurationError: ``public_url`` breaks :func:`~nanohubmcp.transports.public_url.checked_public_url`'s
            rule (the one every public URL follows): not an absolute http(s) URL, a query, a space, ...

    Example:
        >>> info = detect_proxy({}, port=8000)
        >>> override(info, public_url="https://gw.example.org/me").public_url
        'https://gw.example.org/me/'
    """
    changes: dict[str, object] = {}
    notes = []
    if public_url is not None:
        try:
            parts = urlsplit(checked_public_url(public_url))
        except ConfigurationError as exc:
            raise ConfigurationError(f"public_url {exc}") from None
        path, port, host = parts.path, parts.port, str(parts.hostname)  # the rule requires a host
        host = f"[{host}]" if ":" in host else host
        if port is not None and port != _DEFAULT_PORTS[parts.scheme]:
            host = f"{host}:{port}"  # a default port is dropped: browsers leave it out of Origin
        changes["public_url"] = f"{parts.scheme}://{host}{path}"
        changes["public_origin"] = f"{parts.scheme}://{host}"
        notes.append("public URL")
    if path_prefix is not None:
        changes["path_prefix"] = _normalize_prefix(path_prefix)
        notes.append("path prefix")
    if not changes:
        return info
    changes["reason"] = f"{info.reason}; {' and '.join(notes)} set by configuration"
    return dataclasses.replace(info, **changes)  # type: ignore[arg-type]
