"""What ``nanohubmcp bridge`` connects to: the server's URL and the headers sent with every request.

Every request carries :attr:`BridgeOptions.headers`: ``--header``, ``--cookie``, and ``--token``
(default ``$MCP_TOKEN``) as ``Authorization: Bearer``. :attr:`BridgeOptions.accept` is the
POST's ``Accept`` header: ``text/event-stream`` alone for a jupyter-server-proxy route
(``…/proxy/<port>/…``), which streams a reply only to a request accepting exactly that and holds
any other reply until the call ends (progress would arrive with the result, and an elicitation
mid-call would time out); both types elsewhere, as the specification asks.

Nothing the bridge prints or answers shows a credential: :meth:`BridgeOptions.shown` is what every
message naming the URL, or quoting the server, goes through (``…/mcp?token=***``). A URL, token,
header or cookie still holding a placeholder of the docs or of a notebook's status (``<your Jupyter
token>``, ``<the token %mcp token shows>``) is refused at start, saying what to put there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

from ...errors import ConfigurationError, UsageError
from ..redaction import PLACEHOLDER, hide_userinfo_unparsed, redact, secrets_of

_JUPYTER_PROXY_ROUTE = re.compile(r"/proxy/\d{1,5}/")
"""A jupyter-server-proxy route in a URL's path: ``<Jupyter base URL>proxy/<port>/``."""
SSE_ONLY = "text/event-stream"
"""The POST ``Accept`` for a jupyter-server-proxy route (see the module docstring)."""


_REPLACE_WITH = {
    "<your Jupyter token>": "the Jupyter server's own token (`jupyter server list`, in a terminal of the "
                            "notebook's session, shows the server's URL with its token=)",
    "<the token %mcp token shows>": "the token `%mcp token` shows in the notebook (a new one after each kernel "
                                    "restart, unless NanohubMCP.token sets it)",
    "<the token print(server.token) shows>": "the token `print(server.token)` shows in the notebook",
}
"""What each placeholder this package writes stands for."""


def placeholder_left(value: str, what: str) -> str | None:
    """The sentence saying that ``value`` (``what`` names it) still holds a placeholder (``<...>``, also
    percent-encoded) and what replaces it, or None when it holds none."""
    found = re.search(PLACEHOLDER, value) or re.search(PLACEHOLDER, unquote(value))
    if found is None:
        return None
    placeholder = found.group(0)
    meaning = _REPLACE_WITH.get(placeholder, "the value it stands for")
    return (f"{what} still holds the placeholder {placeholder} from the docs or the notebook's status: "
            f"replace it, angle brackets included, with {meaning}")


def refuse_placeholder(value: str, what: str, error: type[Exception]) -> None:
    """Raise ``error`` when ``value`` still holds a placeholder (:func:`placeholder_left`): the bridge
    would otherwise send it and get an answer that says nothing about it (Jupyter's 403, a 401, a
    connection error)."""
    said = placeholder_left(value, what)
    if said is not None:
        raise error(said)


def endpoint_url(url: str, what: str = "URL") -> str:
    """The server's MCP endpoint that ``url`` names: ``url`` itself when its path ends in ``/mcp`` or
    ``/sse``, else ``url`` with ``mcp`` appended (a base URL, ``http://host:8000/`` or a weber path).

    Raises:
        UsageError: not an http(s) URL with a host and a valid port (``what`` names it; a placeholder
            such as ``<your Jupyter token>``, whose spaces no URL holds, is named; what precedes the last
            ``@`` is never shown: a password with an unescaped ``/``, ``?`` or ``#``); a URL holding a
            ``user:password@`` (shown ``user:***@``): the bridge has no use for it (an MCP server takes
            a bearer token), and would otherwise send it nowhere but in the ``Host`` header.
    """
    parts = urlsplit(url.strip())
    try:
        port_ok = parts.port is None or parts.port > 0
    except ValueError:  # not a number, or out of range
        port_ok = False
    if parts.scheme not in ("http", "https") or not parts.hostname or not port_ok or " " in url.strip():
        refuse_placeholder(url, what, UsageError)
        raise UsageError(
            f"{what} must be an http:// or https:// URL with a host (like http://127.0.0.1:8000/mcp), got "
            f"{redact(hide_userinfo_unparsed(url), secrets_of(url))!r}")
    if "@" in parts.netloc:
        what_held = "a user name and password" if parts.password is not None else "a user name"
        raise UsageError(
            f"{what} holds {what_held} ({redact(url.strip(), secrets_of(url))}), which the bridge does not send: "
            "an MCP server takes a bearer token, so give it in $MCP_TOKEN or --token-file PATH (a Jupyter server's "
            "token goes in ?token=); for a proxy asking for a password, --header 'Authorization: Basic ...'")
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

    def shown(self, text: str) -> str:
        """``text`` as the bridge may print it: every credential of the URL (``?token=``, a password)
        and of the headers (``--token``, ``--header``, ``--cookie``) replaced by ``***``."""
        return redact(text, secrets_of(self.url, self.headers))

    @classmethod
    def from_arguments(
        cls, url: str, *, headers: list[str], cookies: list[str], token: str | None = None
    ) -> BridgeOptions:
        """Options from the command line: ``--header 'Name: value'``, ``--cookie 'name=value'``,
        ``--token T`` (sent as ``Authorization: Bearer T``).

        A base URL (``http://host:8000/`` or a weber path) gets ``mcp`` appended.

        Raises:
            UsageError: a URL that is not http(s), a header without a colon, a cookie without ``=``; a
                URL, header or cookie that still holds a placeholder (``<your Jupyter token>``).
            ConfigurationError: a header value (the token's too, which may come from ``$MCP_TOKEN``)
                with a control character or a character that is not ASCII, a token that is still a
                placeholder, an ``Authorization`` header together with a token.
        """
        refuse_placeholder(url, "the URL", UsageError)
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
        refuse_placeholder(token, "the token (MCP_TOKEN, --token or --token-file)", ConfigurationError)
        if token:
            sent["Authorization"] = f"Bearer {token}"
        for header in headers:
            refuse_placeholder(header, "--header", UsageError)
        for cookie in jar:
            refuse_placeholder(cookie, "--cookie", UsageError)
        for name, value in sent.items():
            if not value.isprintable():
                raise ConfigurationError(
                    f"the {name} header (--header, --cookie, --token or $MCP_TOKEN) holds a line break or "
                    "another control character; remove it"
                )
            if not value.isascii():  # a bearer token is ASCII (RFC 6750 § 2.1): no server would match it
                others = ", ".join(repr(ch) for ch in sorted({ch for ch in value if not ch.isascii()})[:5])
                raise ConfigurationError(
                    f"the {name} header (--header, --cookie, --token or $MCP_TOKEN) holds {others}, not ASCII: "
                    "an HTTP header cannot carry it as written; a bearer token is ASCII letters, digits and "
                    "- . _ ~ + / (RFC 6750 § 2.1)"
                )
        if _JUPYTER_PROXY_ROUTE.search(urlsplit(url).path):
            return cls(url=url, headers=sent, accept=SSE_ONLY)
        return cls(url=url, headers=sent)


def legacy_url(url: str) -> str:
    """The legacy HTTP+SSE endpoint (``.../sse``) beside a Streamable HTTP one (``.../mcp``)."""
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    base = path[: -len("/mcp")] if path.endswith("/mcp") else path
    return parts._replace(path=f"{base}/sse").geturl()
