"""What ``nanohubmcp bridge`` connects to: the server's URL and the headers sent with every request.

Every request carries :attr:`BridgeOptions.headers`: ``--header``, ``--cookie``, and ``--token``
(default ``$MCP_TOKEN``) as ``Authorization: Bearer``. :attr:`BridgeOptions.accept` is the
POST's ``Accept`` header: ``text/event-stream`` alone for a jupyter-server-proxy route
(``…/proxy/<port>/…``), which streams a reply only to a request accepting exactly that and holds
any other reply until the call ends (progress would arrive with the result, and an elicitation
mid-call would time out); both types elsewhere, as the specification asks.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlsplit

from ...errors import ConfigurationError, UsageError

_JUPYTER_PROXY_ROUTE = re.compile(r"/proxy/\d{1,5}/")
"""A jupyter-server-proxy route in a URL's path: ``<Jupyter base URL>proxy/<port>/``."""
SSE_ONLY = "text/event-stream"
"""The POST ``Accept`` for a jupyter-server-proxy route (see the module docstring)."""


def endpoint_url(url: str, what: str = "URL") -> str:
    """The server's MCP endpoint that ``url`` names: ``url`` itself when its path ends in ``/mcp`` or
    ``/sse``, else ``url`` with ``mcp`` appended (a base URL, ``http://host:8000/`` or a weber path).

    Raises:
        UsageError: not an http(s) URL with a host and a valid port (``what`` names it).
    """
    parts = urlsplit(url.strip())
    try:
        port_ok = parts.port is None or parts.port > 0
    except ValueError:  # not a number, or out of range
        port_ok = False
    if parts.scheme not in ("http", "https") or not parts.hostname or not port_ok or " " in url.strip():
        raise UsageError(
            f"{what} must be an http:// or https:// URL with a host (like http://127.0.0.1:8000/mcp), got {url!r}")
    path = parts.path.rstrip("/")
    if not (path.endswith("/mcp") or path.endswith("/sse")):
        return parts._replace(path=f"{path}/mcp").geturl()
    return parts.geturl()


@dataclass
class BridgeOptions:
    """What the bridge connects to and sends with every request.

    Attributes:
        url: the server's Streamable HTTP endpoint (``.../mcp``), or its legacy ``.../sse``.
        headers: sent with every request (``Cookie`` included).
        accept: the POST's ``Accept`` header (:data:`SSE_ONLY` for a jupyter-server-proxy route).
    """

    url: str
    headers: dict[str, str] = field(default_factory=dict)
    accept: str = "application/json, text/event-stream"

    @classmethod
    def from_arguments(
        cls, url: str, *, headers: list[str], cookies: list[str], token: str | None = None
    ) -> BridgeOptions:
        """Options from the command line: ``--header 'Name: value'``, ``--cookie 'name=value'``,
        ``--token T`` (sent as ``Authorization: Bearer T``).

        A base URL (``http://host:8000/`` or a weber path) gets ``mcp`` appended.

        Raises:
            UsageError: a URL that is not http(s), a header without a colon, a cookie without ``=``.
            ConfigurationError: a header value (the token's too, which may come from ``$MCP_TOKEN``)
                with a control character, an ``Authorization`` header together with a token.
        """
        url = endpoint_url(url)
        sent: dict[str, str] = {}
        for header in headers:
            name, sep, value = header.partition(":")
            if not sep or not name.strip():
                raise UsageError(f"--header takes 'Name: value', got {header!r}")
            sent[name.strip()] = value.strip()
        jar = [c.strip() for c in cookies if c.strip()]
        for cookie in jar:
            if "=" not in cookie:
                raise UsageError(f"--cookie takes 'name=value', got {cookie!r}")
        if jar:
            sent["Cookie"] = "; ".join(filter(None, [sent.get("Cookie", ""), *jar]))
        token = (token or "").strip()  # a token read from a file often ends in a newline
        if token and any(name.lower() == "authorization" for name in sent):
            raise ConfigurationError(
                "both --header 'Authorization: ...' and --token (or $MCP_TOKEN) set the Authorization header; "
                "give only one of them")
        if token:
            sent["Authorization"] = f"Bearer {token}"
        for name, value in sent.items():
            if not value.isprintable():
                raise ConfigurationError(
                    f"the {name} header (--header, --cookie, --token or $MCP_TOKEN) holds a line break or "
                    "another control character; remove it"
                )
        if _JUPYTER_PROXY_ROUTE.search(urlsplit(url).path):
            return cls(url=url, headers=sent, accept=SSE_ONLY)
        return cls(url=url, headers=sent)


_JUPYTER_ROUTE = re.compile(r"/(?:proxy|nanohubmcp)/\d{1,5}/")
"""A route through a Jupyter server to a notebook's MCP server (jupyter-server-proxy's, or the extension's)."""


def jupyter_refusal(url: str, status: int, body: str) -> str | None:
    """What to tell the user when a Jupyter server, not the MCP server, refused a request to ``url``
    (403 with Jupyter's XSRF message, or Jupyter's ``{"message", "reason"}`` error on a route through
    Jupyter); else None.

    A client that does not send Jupyter's token gets Jupyter's "'_xsrf' argument missing from POST",
    which says nothing about tokens.
    """
    if status != 403:
        return None
    try:
        reply = json.loads(body)
    except ValueError:
        reply = None
    jupyter_shaped = isinstance(reply, dict) and set(reply) == {"message", "reason"}
    parts = urlsplit(url)
    if "_xsrf" not in body and not (jupyter_shaped and _JUPYTER_ROUTE.search(parts.path)):
        return None
    said = reply["message"] if jupyter_shaped else " ".join(body.split())[:200]
    if "token" in dict(parse_qsl(parts.query)):
        return (f"the Jupyter server at {parts.netloc} refused the token in the URL (it said: {said}): put that "
                "Jupyter server's own token in ?token= (`jupyter server list` shows it)")
    return (f"the Jupyter server at {parts.netloc} refused the request (it said: {said}): a URL through Jupyter "
            "needs Jupyter's own token in it, .../mcp?token=<Jupyter token> (the MCP server's token stays in "
            "MCP_TOKEN)")


def legacy_url(url: str) -> str:
    """The legacy HTTP+SSE endpoint (``.../sse``) beside a Streamable HTTP one (``.../mcp``)."""
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    base = path[: -len("/mcp")] if path.endswith("/mcp") else path
    return parts._replace(path=f"{base}/sse").geturl()
