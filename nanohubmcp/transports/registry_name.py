"""The name a server is listed under: the MCP Registry's ``server.json``, the Server Card and the catalogs.

It is reverse-DNS with exactly one slash (``org.nanohub.proxy/my-calculator``): the
``NANOHUBMCP_REGISTRY_NAME`` environment variable when set, else the server's name when it already has
that form, else the public host's labels reversed (``local`` for loopback and IP addresses), a slash,
and the server's name with characters outside ``[A-Za-z0-9._-]`` made ``-``.

A module of its own, apart from the documents (``discovery.py``): serving checks the variable when it
starts (:func:`check_name_variable`), and the documents' routes load with their first request.
"""

from __future__ import annotations

import ipaddress
import os
import re
from urllib.parse import urlsplit

from ..errors import ConfigurationError

NAME_VARIABLE = "NANOHUBMCP_REGISTRY_NAME"
_NAME = r"^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+\Z"  # (compiled by ``re`` at its first use, not at start)


def registry_name(server_name: str, base: str | None, explicit: str | None = None, *, variable: bool = True) -> str:
    """The reverse-DNS ``namespace/name`` of the registry and the card (see the module doc);
    ``variable=False`` leaves ``NANOHUBMCP_REGISTRY_NAME`` out.

    Raises:
        ConfigurationError: ``explicit`` (or ``NANOHUBMCP_REGISTRY_NAME``) is not of that form.
    """
    if explicit:
        return _checked(explicit, "registry name")
    chosen = os.environ.get(NAME_VARIABLE) if variable else None
    if chosen:
        return _checked(chosen, f"${NAME_VARIABLE}")
    if re.match(_NAME, server_name) and len(server_name) <= 200:
        return server_name
    suffix = re.sub(r"[^a-zA-Z0-9._-]+", "-", server_name).strip("-") or "server"
    return f"{_namespace(base)}/{suffix}"[:200]


def check_name_variable() -> None:
    """Refuse a malformed ``NANOHUBMCP_REGISTRY_NAME`` when serving starts, rather than at each request
    for the card or a catalog.

    Raises:
        ConfigurationError: it is set and not reverse-DNS ``namespace/name`` (the message says the form).
    """
    chosen = os.environ.get(NAME_VARIABLE)
    if chosen:
        _checked(chosen, f"${NAME_VARIABLE}")


def _checked(chosen: str, what: str) -> str:
    if not re.match(_NAME, chosen) or not 3 <= len(chosen) <= 200:
        shown = f"{what} {chosen!r}" if what == "registry name" else f"{what}={chosen!r}: the registry name"
        raise ConfigurationError(
            f"{shown} must be reverse-DNS with one slash, namespace/name as the MCP Registry requires, e.g. "
            "org.example/my-server (letters, digits, '.', '-' before the slash; also '_' after it; 3 to 200 "
            "characters)"
        )
    return chosen


def _namespace(base: str | None) -> str:
    host = urlsplit(base).hostname if base else None
    if not host or host == "localhost" or not re.fullmatch(r"[a-zA-Z0-9.-]+", host) or "." not in host:
        return "local"
    try:
        ipaddress.ip_address(host)
        return "local"
    except ValueError:
        return ".".join(reversed(host.strip(".").split(".")))
