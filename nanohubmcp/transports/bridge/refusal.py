"""What the bridge tells its client about a request the server, or a Jupyter server before it, refused.

Owns the reading of an error response's body: :func:`server_said` (its text, bounded: the ``message``
of Jupyter's JSON error — this package's Jupyter server extension says there why a notebook's server
cannot be reached and what to run again — else the body without markup), :func:`refused_by_jupyter`
(a route through Jupyter answered with Jupyter's error: no MCP server spoke, so the legacy SSE
fallback has nothing to find), :func:`jupyter_refusal` (Jupyter's 403, explained) and :func:`proxy_hint` (a 5xx
through jupyter-server-proxy: the notebook's server may be gone). Hiding the
credentials in what is shown is :meth:`.options.BridgeOptions.shown`'s.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from urllib.parse import parse_qsl, urlsplit

from ..redaction import authority

__all__ = ["MAX_SAID_CHARS", "jupyter_message", "jupyter_refusal", "proxy_hint", "refused_by_jupyter", "server_said"]

MAX_SAID_CHARS = 500
"""Longest part of an error response's body the bridge repeats (the rest is cut, ``…`` marks it)."""
_JUPYTER_ROUTE = re.compile(r"/(?:proxy|nanohubmcp)/\d{1,5}/")
"""A route through a Jupyter server to a notebook's MCP server (jupyter-server-proxy's, or the extension's)."""
_JUPYTER_ERROR_KEYS = frozenset({"message", "reason", "traceback"})
_MARKUP = re.compile(r"<[^>]{0,200}>")
_HTML_PAGE = re.compile(r"\s*<(?:!doctype\s+html|html)[\s>]", re.IGNORECASE)
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""Control characters and bidirectional overrides: a page's text reaches the user's terminal, where an escape
sequence the server chose would act (colours, cursor moves, a title) and an override would reorder what is shown."""
_PROXY_ROUTE = re.compile(r"/proxy/\d{1,5}/")
"""jupyter-server-proxy's route to a port (``proxy/<port>/``)."""


class _PageText(HTMLParser):
    """An HTML page's ``<title>`` and the text of its ``<body>``, without what a browser does not show as text
    (``<script>``, ``<style>``, ``<noscript>``, ``<template>``) and without any attribute (Jupyter's page
    carries its API token in one)."""

    _HIDDEN = frozenset({"script", "style", "noscript", "template", "head"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title: list[str] = []
        self.body: list[str] = []
        self._open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._HIDDEN or tag == "title":
            self._open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self._open:
            del self._open[len(self._open) - 1 - self._open[::-1].index(tag):]

    def handle_data(self, data: str) -> None:
        if self._open == ["head", "title"] or self._open == ["title"]:
            self.title.append(data)
        elif not self._open:
            self.body.append(data)


def _page_text(body: str) -> str | None:
    """``"<title>: <the body's text>"`` of an HTML page, else None (not a page)."""
    if not _HTML_PAGE.match(body):
        return None
    page = _PageText()
    page.feed(body[:200_000])
    title, text = (" ".join(" ".join(part).split()) for part in (page.title, page.body))
    return ": ".join(part for part in (title, text) if part)


def jupyter_message(body: str) -> str | None:
    """The ``message`` of Jupyter's JSON error reply (``{"message": ..., "reason": ...}``), else None."""
    try:
        reply = json.loads(body)
    except ValueError:
        return None
    if not (isinstance(reply, dict) and "message" in reply and set(reply) <= _JUPYTER_ERROR_KEYS):
        return None
    message = reply["message"]
    return message.strip() if isinstance(message, str) and message.strip() else None


def server_said(body: str) -> str:
    """What an error response's ``body`` says, on one line of at most :data:`MAX_SAID_CHARS`: the
    message of Jupyter's JSON error, else of an HTML page its title and the text of its body (a Jupyter
    server's error page: "Jupyter Server: 500 : Internal Server Error The error was: ..."), else the text
    with HTML tags dropped ("" for an empty body); a control character or a bidirectional override in it
    is shown as U+FFFD."""
    said = jupyter_message(body) or _page_text(body) or _MARKUP.sub(" ", body)
    said = _UNPRINTABLE.sub("\ufffd", " ".join(said.split()))
    return said if len(said) <= MAX_SAID_CHARS else said[: MAX_SAID_CHARS - 1] + "…"


def refused_by_jupyter(url: str, body: str) -> bool:
    """Whether ``body`` is Jupyter's JSON error answering a route through Jupyter (``url``): the Jupyter
    server answered, not an MCP server (the extension's 404 for a notebook server that stopped)."""
    return bool(_JUPYTER_ROUTE.search(urlsplit(url).path)) and jupyter_message(body) is not None


def jupyter_refusal(url: str, status: int, body: str) -> str | None:
    """What to tell the user when a Jupyter server, not the MCP server, refused a request to ``url``
    (403 with Jupyter's XSRF message, or Jupyter's ``{"message", "reason"}`` error on a route through
    Jupyter); else None.

    A client that does not send Jupyter's token gets Jupyter's "'_xsrf' argument missing from POST",
    which says nothing about tokens.
    """
    if status != 403 or ("_xsrf" not in body and not refused_by_jupyter(url, body)):
        return None
    said = server_said(body)
    parts = urlsplit(url)
    if "token" in dict(parse_qsl(parts.query)):
        return (f"the Jupyter server at {authority(url)} refused the token in the URL (it said: {said}): put that "
                "Jupyter server's own token in ?token= (`jupyter server list` shows it)")
    return (f"the Jupyter server at {authority(url)} refused the request (it said: {said}): a URL through Jupyter "
            "needs Jupyter's own token in it, .../mcp?token=<Jupyter token> (the MCP server's token stays in "
            "MCP_TOKEN)")


def proxy_hint(url: str, status: int) -> str:
    """For a 5xx answering a jupyter-server-proxy route (``.../proxy/<port>/...``), why it likely came: the
    notebook's server on that port is gone (jupyter-server-proxy answers a refused connection so); else ""."""
    if status < 500 or not _PROXY_ROUTE.search(urlsplit(url).path):
        return ""
    return (" (is the notebook's MCP server still running? After a kernel restart the kernel starts empty: run "
            "its %load_ext nanohubmcp and %%mcp_* cells again)")
