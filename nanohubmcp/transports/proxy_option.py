"""The ``--public-url``, ``--path-prefix``, ``--allowed-origins`` and ``--proxy-headers`` options of the
serving commands (``nanohubmcp run`` and the other serving subcommands, ``start_mcp``).

Each means what ``MCPServer.run()``'s argument of the same name means, and defaults to an environment
variable in the ``MCP_*`` family ``run()`` reads (``$MCP_PORT``, ``$MCP_TOKEN``, ``$MCP_TRANSPORT``):
``$MCP_PUBLIC_URL``, ``$MCP_PATH_PREFIX``, ``$MCP_ALLOWED_ORIGINS``. A value given either way is checked
when the command line is parsed: a bad one is a usage error (exit status 2) whose one line says where it
came from and what to give instead. Only ``argparse`` is imported here (and :mod:`.url_path`).
"""

from __future__ import annotations

import argparse
import os

from .url_path import prefix_path

__all__ = [
    "ALLOWED_ORIGINS_VARIABLE",
    "PATH_PREFIX_VARIABLE",
    "PROXY_HEADERS_VARIABLE",
    "PUBLIC_URL_VARIABLE",
    "FromEnvironment",
    "allowed_origins",
    "http_url",
    "named_source",
    "path_prefix",
    "proxy_arguments",
    "public_url",
]


class FromEnvironment(str):
    """An environment variable's text as an option's default (``$MCP_PORT`` for ``--port``): argparse
    converts a text default with the option's type only when the option is not given, and the type
    names the variable in its message."""

    variable: str

    def __new__(cls, value: str, variable: str) -> FromEnvironment:
        text = super().__new__(cls, value)
        text.variable = variable
        return text


PUBLIC_URL_VARIABLE = "MCP_PUBLIC_URL"
"""The environment variable ``--public-url`` defaults to (``run(public_url=...)``)."""
PATH_PREFIX_VARIABLE = "MCP_PATH_PREFIX"
"""The environment variable ``--path-prefix`` defaults to (``run(path_prefix=...)``)."""
PROXY_HEADERS_VARIABLE = "MCP_PROXY_HEADERS"
"""The environment variable ``run(proxy_headers=None)`` reads (``--proxy-headers`` left out)."""
ALLOWED_ORIGINS_VARIABLE = "MCP_ALLOWED_ORIGINS"
"""The environment variable ``--allowed-origins`` defaults to (``run(allowed_origins=...)``)."""


def proxy_arguments(command: argparse.ArgumentParser, *, weber: bool = False) -> None:
    """``--public-url``, ``--path-prefix``, ``--allowed-origins``, ``--proxy-headers``: what a server behind a
    proxy is told (``--proxy-headers`` left out is None: ``run()`` then reads ``$MCP_PROXY_HEADERS``).

    Each means what the ``run()`` argument of the same name means; each defaults to an environment
    variable (:data:`PUBLIC_URL_VARIABLE`, :data:`PATH_PREFIX_VARIABLE`, :data:`ALLOWED_ORIGINS_VARIABLE`),
    checked as the option is: a bad value is a usage error naming where it came from (exit status 2).
    ``weber=True`` (``start_mcp``, which detects a nanoHUB session) says in the help that the detected
    weber URL and path come next.
    """
    hub_url = "in a nanoHUB session the detected weber URL (https://proxy.<hub>/weber/<session>/<cookie>/<n>/), else "
    hub_prefix = "in a nanoHUB tool session without wrwroxy the weber path, else "
    command.add_argument(
        "--public-url",
        type=public_url,
        default=_environment(PUBLIC_URL_VARIABLE),
        metavar="URL",
        help="HTTP: the base URL clients reach the server at through a proxy, e.g. https://tools.example.org/ "
        "(advertised in every document; its host is answered, not 421; its origin allowed; with --path-prefix "
        "it ends with the prefix). Default "
        f"${PUBLIC_URL_VARIABLE}, else {hub_url if weber else ''}the request's own host",
    )
    command.add_argument(
        "--path-prefix",
        type=path_prefix,
        default=_environment(PATH_PREFIX_VARIABLE),
        metavar="PATH",
        help="HTTP: the path to serve under, for a proxy that forwards it without stripping it, e.g. /tools "
        f"(tools is taken as /tools; default ${PATH_PREFIX_VARIABLE}, else {hub_prefix if weber else ''}/)",
    )
    command.add_argument(
        "--allowed-origins",
        type=allowed_origins,
        default=_environment(ALLOWED_ORIGINS_VARIABLE),
        metavar="ORIGINS",
        help="HTTP: browser origins allowed besides loopback and the public URL's, comma-separated "
        f"(https://app.example.org,https://b.example.org), or '*' for any (default ${ALLOWED_ORIGINS_VARIABLE})",
    )
    _proxy_headers_argument(command)


def _proxy_headers_argument(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--proxy-headers",
        action="store_true",
        default=None,
        help="HTTP: trust the X-Forwarded-Proto / X-Real-Ip headers a reverse proxy sets, so URLs built from "
        "requests take the client's https scheme; only when every request comes through a proxy that sets "
        "them (default $MCP_PROXY_HEADERS, else off)",
    )


def _environment(variable: str) -> str | None:
    """An option's default read from ``variable``: None when unset or blank, else its text marked as
    coming from there (argparse converts a text default with the option's type, which names it)."""
    value = os.environ.get(variable, "").strip()
    return FromEnvironment(value, variable) if value else None


def named_source(text: str) -> str:
    """``"$VARIABLE "`` when ``text`` came from an environment variable, else ``""`` (to start a message)."""
    return f"${text.variable} " if isinstance(text, FromEnvironment) else ""


def public_url(text: str) -> str:
    """An http(s) URL with a host and no query or fragment, ending in ``/`` (argparse type): the rule
    ``run(public_url=...)`` follows (:func:`.public_url.checked_public_url`), refused as a usage error."""
    from ..errors import ConfigurationError
    from .public_url import checked_public_url

    try:
        return checked_public_url(text)
    except ConfigurationError as exc:
        raise argparse.ArgumentTypeError(f"{named_source(text)}{exc}") from None


def path_prefix(text: str) -> str:
    """A URL path such as ``/tools`` (argparse type; ``/`` or empty: the root). A missing leading ``/`` is
    added (``tools`` is ``/tools``), as ``--public-url`` gets its trailing one, and the help says so."""
    value = text.strip()
    if not prefix_path(value):
        raise argparse.ArgumentTypeError(
            f"{named_source(text)}{text!r} is not a URL path: give the path alone, e.g. /tools (no scheme, host, "
            "query, spaces, '.'/'..' segments or empty ones ('//'))"
        )
    return value if not value or value.startswith("/") else "/" + value


def allowed_origins(text: str) -> str | list[str]:
    """``*``, or origins ``scheme://host[:port]`` separated by commas (argparse type), each as browsers send it
    (:func:`~.public_url.checked_origin`: ``http://bücher.example`` → ``http://xn--bcher-kva.example``)."""
    from ..errors import ConfigurationError
    from .public_url import checked_origin

    value = text.strip()
    if value == "*":
        return "*"
    origins = [part.strip() for part in value.split(",") if part.strip()]
    if not origins:
        raise argparse.ArgumentTypeError(f"{named_source(text)}no origin given: e.g. https://app.example.org, or '*'")
    try:
        return [checked_origin(origin) for origin in origins]
    except ConfigurationError as exc:
        raise argparse.ArgumentTypeError(f"{named_source(text)}{exc} (comma-separated; '*' for any)") from None


def http_url(text: str) -> str:
    """An absolute http(s) URL with a host (argparse type: anything else is a usage error, exit 2)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(text.strip())
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise argparse.ArgumentTypeError(f"{text!r} is not an http:// or https:// URL with a host")
    return text.strip()
