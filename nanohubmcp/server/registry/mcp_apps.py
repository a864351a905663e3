"""MCP Apps: a tool that ships an interactive view (the ``io.modelcontextprotocol/ui`` extension).

A view is an HTML document served as a ``ui://`` resource with the MIME type
``text/html;profile=mcp-app``; a tool names it in its definition's ``_meta.ui.resourceUri``.
A host that supports the extension reads the resource, renders it in a sandboxed iframe and
sends it the tool's arguments and result over ``postMessage`` (JSON-RPC 2.0: the view asks
``ui/initialize``, says ``ui/notifications/initialized``, then receives
``ui/notifications/tool-input`` and ``ui/notifications/tool-result``). The resource's
``_meta.ui`` declares what the view may reach (``csp``), a dedicated origin (``domain``), the
sandbox permissions it asks for and whether it prefers a border.

Every view this module serves carries a small inline script speaking the view side of that
protocol, so the HTML is self-contained (no CDN, nothing to bundle). A view's own scripts use it
through ``window.mcpApp``::

    mcpApp.onToolResult(result => draw(mcpApp.data(result)));

``mcpApp.onToolInput(cb)``, ``mcpApp.request(method, params)`` (e.g. ``tools/call`` through
the host), ``mcpApp.result`` / ``mcpApp.input`` (the latest ones) and the window events
``mcp-tool-input`` / ``mcp-tool-result`` are there too.

Source: SEP-1865 "MCP Apps" (ext-apps specification, stable 2026-01-26).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ...errors import RegistrationError

EXTENSION = "io.modelcontextprotocol/ui"
"""The extension's identifier (clients advertise it under ``capabilities.extensions``)."""
UI_MIME = "text/html;profile=mcp-app"
"""The MIME type of a view resource."""
APPS_PROTOCOL_VERSION = "2026-01-26"

_CSP_KEYS = {
    "connect_domains": "connectDomains",
    "resource_domains": "resourceDomains",
    "frame_domains": "frameDomains",
    "base_uri_domains": "baseUriDomains",
}
_PERMISSIONS = ("camera", "microphone", "geolocation", "clipboardWrite")
_VISIBILITY = ("model", "app")

# The view side of the Apps protocol (postMessage JSON-RPC to the host window).
_BRIDGE_JS = r"""
(function () {
  "use strict";
  var host = window.parent, nextId = 1, pending = {};
  var listeners = {"tool-input": [], "tool-result": [], "host-context": []};
  function send(message) { message.jsonrpc = "2.0"; host.postMessage(message, "*"); }
  function emit(kind, value) {
    listeners[kind].forEach(function (cb) { try { cb(value); } catch (e) { console.error(e); } });
    window.dispatchEvent(new CustomEvent("mcp-" + kind, {detail: value}));
  }
  function on(kind, cb, current) { listeners[kind].push(cb); if (current) { cb(current); } }
  var app = window.mcpApp = {
    input: null, result: null, hostContext: null,
    onToolInput: function (cb) { on("tool-input", cb, app.input); },
    onToolResult: function (cb) { on("tool-result", cb, app.result); },
    onHostContext: function (cb) { on("host-context", cb, app.hostContext); },
    data: function (result) {
      if (!result) { return null; }
      if (result.structuredContent !== undefined) { return result.structuredContent; }
      var text = (result.content || []).filter(function (b) { return b.type === "text"; })
        .map(function (b) { return b.text; }).join("\n");
      try { return JSON.parse(text); } catch (e) { return text; }
    },
    request: function (method, params) {
      var id = nextId++;
      return new Promise(function (resolve, reject) {
        pending[id] = {resolve: resolve, reject: reject};
        send({id: id, method: method, params: params || {}});
      });
    }
  };
  window.addEventListener("message", function (event) {
    var m = event.data;
    if (event.source !== host || !m || m.jsonrpc !== "2.0") { return; }
    if (m.method === undefined) {
      var waiter = pending[m.id];
      delete pending[m.id];
      if (waiter && m.error) { waiter.reject(m.error); } else if (waiter) { waiter.resolve(m.result); }
    } else if (m.method === "ui/notifications/tool-input") {
      app.input = m.params; emit("tool-input", m.params);
    } else if (m.method === "ui/notifications/tool-result") {
      app.result = m.params; emit("tool-result", m.params);
    } else if (m.method === "ui/notifications/host-context-changed") {
      app.hostContext = Object.assign({}, app.hostContext, m.params); emit("host-context", app.hostContext);
    } else if (m.id !== undefined) {
      send({id: m.id, result: {}});
    }
  });
  function reportSize() {
    var root = document.documentElement;
    send({method: "ui/notifications/size-changed",
          params: {width: Math.ceil(root.scrollWidth), height: Math.ceil(root.scrollHeight)}});
  }
  app.request("ui/initialize", {appInfo: {name: "__NAME__", version: "1.0.0"}, appCapabilities: {},
                                protocolVersion: "__VERSION__"}).then(function (answer) {
    app.hostContext = (answer && answer.hostContext) || null;
    send({method: "ui/notifications/initialized", params: {}});
    if (window.ResizeObserver) { new ResizeObserver(reportSize).observe(document.documentElement); }
    else { reportSize(); }
  });
})();
"""

# Patterns compiled by ``re`` at the first view served, not at import (this module is on the start path).
_HEAD = r"<head(\s[^>]*)?>"
_HTML = r"<html(\s[^>]*)?>"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_ORIGIN = (r"[A-Za-z][A-Za-z0-9+.-]*://"  # scheme
           rf"(?:(?:\*\.)?{_LABEL}(?:\.{_LABEL})*|\[[0-9A-Fa-f:.]+\])"  # host: a name (*. for its subdomains), [IPv6]
           r"(?::(?P<port>[0-9]{1,5}))?")


def client_shows_views(capabilities: Mapping[str, Any] | None) -> bool:
    """Whether client capabilities declare the extension with HTML views.

    True when ``capabilities["extensions"]["io.modelcontextprotocol/ui"]["mimeTypes"]`` lists
    ``text/html;profile=mcp-app`` (how a client says it can show views, SEP-1865 § Client capabilities).
    """
    extensions = (capabilities or {}).get("extensions")
    declared = extensions.get(EXTENSION) if isinstance(extensions, Mapping) else None
    mime_types = declared.get("mimeTypes") if isinstance(declared, Mapping) else None
    return isinstance(mime_types, list) and UI_MIME in mime_types


def check_view_uri(uri: object, who: str) -> str:
    """``uri`` when it is a ``ui://`` URI; else ``RegistrationError`` naming ``who``."""
    if not isinstance(uri, str) or not uri.startswith("ui://") or len(uri) <= len("ui://"):
        raise RegistrationError(f"{who}: a view is a 'ui://...' resource URI (MCP Apps), not {uri!r}")
    if "{" in uri or "}" in uri:
        raise RegistrationError(f"{who}: a view has one fixed URI, not a template")
    return uri


def tool_view_meta(
    meta: Mapping[str, Any] | None, view: str, who: str, visibility: Iterable[str] | None = None
) -> dict[str, Any]:
    """A tool's ``_meta`` with ``ui.resourceUri`` (and ``ui.visibility``) set; ``meta`` is not changed.

    Args:
        meta: the tool's own ``_meta`` (a ``ui`` object in it is kept and extended).
        view: the view's ``ui://`` URI.
        who: names the tool in errors.
        visibility: whom the host offers the tool to: ``"model"`` and/or ``"app"`` (the view
            itself); None leaves the host's default (both). A hint to the host (:func:`app_only`).
    Raises:
        RegistrationError: not a ``ui://`` URI, or an unknown visibility.
    """
    ui = dict((meta or {}).get("ui") or {})
    ui["resourceUri"] = check_view_uri(view, who)
    if visibility is not None:
        chosen = [visibility] if isinstance(visibility, str) else list(visibility)
        unknown = [v for v in chosen if v not in _VISIBILITY]
        if unknown or not chosen:
            raise RegistrationError(f"{who}: view visibility is a list of 'model' and/or 'app', not {chosen!r}")
        ui["visibility"] = chosen
    return {**(meta or {}), "ui": ui}


def app_only(meta: Mapping[str, Any] | None) -> bool:
    """Whether a tool's ``_meta`` asks hosts to keep it from the model (``ui.visibility`` without
    ``"model"``: ``view_visibility=["app"]``), a tool for its view to call through the host.

    A hint, not access control: the host forwards the view's call as a plain ``tools/call``, which
    no server can tell from any other client's. The REST routes, which have no host and no model
    of their own, leave such a tool out (SEP-1865, ``McpUiToolMeta.visibility``)."""
    ui = (meta or {}).get("ui")
    visibility = ui.get("visibility") if isinstance(ui, Mapping) else None
    return isinstance(visibility, list) and "model" not in visibility


def view_resource_meta(
    who: str,
    *,
    csp: Mapping[str, Iterable[str]] | None = None,
    domain: str | None = None,
    permissions: Iterable[str] | None = None,
    prefers_border: bool | None = None,
) -> dict[str, Any]:
    """The ``_meta`` of a view resource: ``{"ui": {csp?, domain?, permissions?, prefersBorder?}}``.

    Args:
        csp: origins the view may reach, by kind: ``connect_domains`` (fetch/XHR/WebSocket),
            ``resource_domains`` (scripts, styles, images, fonts), ``frame_domains`` (nested
            iframes), ``base_uri_domains`` (``<base href>``); the spec's camelCase names work too.
            Without it the host lets the view load nothing from the network.
        domain: a dedicated origin for the view's sandbox (host-specific form).
        permissions: sandbox permissions asked for: ``camera``, ``microphone``, ``geolocation``,
            ``clipboardWrite``.
        prefers_border: whether the view wants the host to draw a border around it.
    Raises:
        RegistrationError: an unknown CSP kind or permission, a domain list that is not strings, or
            one that is not an origin (:func:`check_origin`).
    """
    ui: dict[str, Any] = {}
    if csp:
        declared: dict[str, list[str]] = {}
        for key, origins in csp.items():
            wire_key = _CSP_KEYS.get(key, key)
            if wire_key not in _CSP_KEYS.values():
                raise RegistrationError(f"{who}: unknown csp kind {key!r} (allowed: {', '.join(_CSP_KEYS)})")
            values = [origins] if isinstance(origins, str) else list(origins)
            if not all(isinstance(v, str) and v for v in values):
                raise RegistrationError(f"{who}: csp[{key!r}] must be a list of origins (strings)")
            for value in values:
                check_origin(value, f"{who}: csp[{key!r}]")
            declared[wire_key] = values
        ui["csp"] = declared
    if domain is not None:
        ui["domain"] = domain
    if permissions:
        asked = [permissions] if isinstance(permissions, str) else list(permissions)
        unknown = [p for p in asked if p not in _PERMISSIONS]
        if unknown:
            raise RegistrationError(
                f"{who}: unknown permission(s) {', '.join(map(str, unknown))} (allowed: {', '.join(_PERMISSIONS)})"
            )
        ui["permissions"] = {p: {} for p in asked}
    if prefers_border is not None:
        ui["prefersBorder"] = bool(prefers_border)
    return {"ui": ui}


def check_origin(value: str, where: str) -> None:
    """Refuse ``value`` unless it is an origin as a view's CSP lists it: ``scheme://host`` with an optional
    ``:port`` (1-65535), the host a name, ``*.`` and a name for its subdomains, or a bracketed IPv6
    address; no path (not even ``/``), query, fragment or user. ``https://cdn.example.org``,
    ``wss://live.example.org:8443``, ``https://*.example.org``, ``http://localhost:5173``.

    Raises:
        RegistrationError: naming ``where`` and ``value``, and the origin of ``value`` when it has one
            (``https://cdn.example.org/lib.js`` says ``https://cdn.example.org``).
    """
    import re

    found = re.fullmatch(_ORIGIN, value)
    port = found.group("port") if found else None
    if found is not None and (port is None or 0 < int(port) <= 65535):
        return
    scheme, sep, rest = value.partition("://")
    host = re.split(r"[/?#]", rest, maxsplit=1)[0].rpartition("@")[2] if sep else ""
    if host and host != rest and re.fullmatch(_ORIGIN, f"{scheme}://{host}"):  # a URL with a path, say
        raise RegistrationError(f"{where}: {value!r} is not an origin (scheme://host[:port], nothing after it): "
                                f"write '{scheme}://{host}'")
    raise RegistrationError(f"{where}: {value!r} is not an origin: write scheme://host or scheme://host:port, "
                            "e.g. 'https://cdn.example.org', or 'https://*.example.org' for its subdomains")


def html_of(value: object) -> str:
    """The HTML of a view value: a str, or an object with ``_repr_html_()`` (e.g. a plotly figure).

    Raises:
        TypeError: anything else, saying what to return.
    """
    if isinstance(value, str):
        return value
    rich = getattr(value, "_repr_html_", None)
    if callable(rich):
        html = rich()
        if isinstance(html, str):
            return html
    raise TypeError(
        f"a view returned a value of type {type(value).__name__}: return an HTML string or an object "
        "with _repr_html_() (e.g. a plotly figure)"
    )


def view_document(html: str, name: str = "nanohubmcp-view") -> str:
    """``html`` (a fragment or a whole document) as a document whose ``<head>`` opens with the bridge."""
    script = (
        "<script>"
        + _BRIDGE_JS.replace("__NAME__", _js_text(name)).replace("__VERSION__", APPS_PROTOCOL_VERSION)
        + "</script>"
    )
    head = re.search(_HEAD, html, re.IGNORECASE)
    if head:
        return html[: head.end()] + script + html[head.end() :]
    tag = re.search(_HTML, html, re.IGNORECASE)
    if tag:
        return html[: tag.end()] + "<head>" + script + "</head>" + html[tag.end() :]
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8">' + script + "</head>\n<body>" + html + "</body></html>\n"
    )


def _js_text(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9 ./_-]", "_", text)[:64]


def view_function(fn: Callable[..., Any], name: str) -> Callable[[], str]:
    """A resource function serving ``fn()``'s HTML as a view document (bridge included)."""

    def read_view() -> str:
        return view_document(html_of(fn()), name)

    read_view.__name__ = getattr(fn, "__name__", "view")
    read_view.__doc__ = fn.__doc__
    return read_view
