"""From ``run()``'s options to a transports ``Runner``: the checks, the verifier, the runner itself.

What ``MCPServer.run``/``start`` are given is checked here before anything binds: the transport
(:func:`resolve_transport`), the number of processes (:func:`check_workers`; over stdio one,
:func:`refuse_stdio_workers`), ``$NANOHUBMCP_REGISTRY_NAME``
(:func:`~nanohubmcp.transports.registry_name.check_name_variable`), the 0.4.x keywords
still accepted (:data:`COMPAT_RUN_OPTIONS`); no authorization on a non-loopback address, or with
``allowed_origins="*"``, is a warning
once listening succeeded (:func:`warn_about_config`), as is a tool's view that nothing defines
(:func:`warn_about_views`, over stdio too). :func:`make_runner` then builds the runner; the
transports are imported only there, when serving starts. Starting, stopping and the runner's life
are :class:`~nanohubmcp.serving.Serving`'s.
"""

from __future__ import annotations

import ipaddress
import logging
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlsplit

from ..errors import ConfigurationError, ResourceNotFound
from ..protocol.counts import counted
from ..protocol.message_values import shown_value
from ..protocol.whole_numbers import whole_refusal
from ..state import reach

if TYPE_CHECKING:
    from ..server.core import ServerCore
    from .runner import Runner
    from .servable import Servable

log = logging.getLogger("nanohubmcp")

COMPAT_RUN_OPTIONS = frozenset({"require_session_header", "require_route_headers"})
"""0.4.x ``run()`` keywords accepted (and ignored: sessions and route headers are always checked)."""

DEFAULT_MAX_BUFFERED_BYTES = 256 * 1024 * 1024
"""Most bytes of request bodies received at once over every connection (503 beyond it); the
transports' own default (``transports.config``, not imported before serving starts)."""

TRANSPORTS = ("http", "stdio")
"""What ``run(transport=...)`` and ``$MCP_TRANSPORT`` accept."""


def resolve_transport(transport: str | None) -> str:
    """``transport``, else ``$MCP_TRANSPORT``, else ``"http"``; ConfigurationError for anything else."""
    given = transport or os.environ.get("MCP_TRANSPORT") or "http"
    if not isinstance(given, str):
        raise ConfigurationError(f"transport must be one of {', '.join(TRANSPORTS)}, not {shown_value(given)}")
    chosen = given.strip().lower()
    if chosen not in TRANSPORTS:
        raise ConfigurationError(
            f"transport must be one of {', '.join(TRANSPORTS)} (run(transport=...) or $MCP_TRANSPORT), got {chosen!r}"
        )
    return chosen


_TRUE = ("1", "true", "yes", "on")
_FALSE = ("", "0", "false", "no", "off")


def resolve_proxy_headers(proxy_headers: object) -> bool:
    """``proxy_headers``, else ``$MCP_PROXY_HEADERS``, else False; ConfigurationError for anything else."""
    from ..transports.proxy_option import PROXY_HEADERS_VARIABLE

    if proxy_headers is None:
        text = os.environ.get(PROXY_HEADERS_VARIABLE, "").strip().lower()
        if text not in _TRUE + _FALSE:
            raise ConfigurationError(f"${PROXY_HEADERS_VARIABLE} must be 1, true, yes, on or 0, false, no, off "
                                     f"(trust a reverse proxy's X-Forwarded-Proto / X-Real-Ip), not {text!r}")
        return text in _TRUE
    if not isinstance(proxy_headers, bool):
        raise ConfigurationError(f"proxy_headers must be True or False, not {shown_value(proxy_headers)}")
    return proxy_headers


def make_runner(
    server: Servable,
    host: str,
    port: int | None,
    path_prefix: str,
    public_url: str | None,
    allowed_origins: str | Iterable[str] | None,
    max_request_bytes: int,
    compat: dict[str, Any],
    *,
    token: str | None = None,
    max_buffered_bytes: int = DEFAULT_MAX_BUFFERED_BYTES,
    max_unsent_bytes: int,
    max_buffered_bytes_per_principal: int | None = None,
    max_unsent_bytes_per_principal: int | None = None,
    proxy_headers: bool | None = None,
) -> Runner:
    """A transports ``Runner`` for ``server`` (nothing is bound yet; :func:`warn_about_config` once it listens).

    Raises:
        ConfigurationError: an unknown keyword, or an unusable option (the message says which).
    """
    from ..processes.ports import resolve_port
    from ..transports.auth import bind_resource
    from ..transports.config import TransportConfig
    from ..transports.registry_name import check_name_variable
    from .runner import Runner

    unknown = set(compat) - COMPAT_RUN_OPTIONS
    if unknown:
        raise ConfigurationError(f"unknown run() option(s): {', '.join(sorted(unknown))}")
    if not isinstance(host, str):
        raise ConfigurationError(f"host must be an address or a host name, e.g. '127.0.0.1', not {shown_value(host)}")
    check_name_variable()  # the Server Card's and the catalogs' name: refused now, not at each request
    auth = verifier(server, token)
    config = TransportConfig(
        path_prefix=path_prefix,
        public_url=public_url,
        allowed_origins=allowed_origins,
        max_request_bytes=max_request_bytes,
        max_buffered_bytes=max_buffered_bytes,
        max_unsent_bytes=max_unsent_bytes,
        max_buffered_bytes_per_principal=max_buffered_bytes_per_principal,
        max_unsent_bytes_per_principal=max_unsent_bytes_per_principal,
        auth=auth,
        loopback_bound=is_loopback(host),
        proxy_headers=resolve_proxy_headers(proxy_headers),
    )
    bind_resource(config, host)  # an unknowable audience fails here, before binding
    return Runner(server, config, host, resolve_port(port))


def warn_about_config(runner: Runner) -> None:
    """Log a warning for each risky choice of ``runner``'s configuration: a non-loopback address with no
    authorization configured; ``allowed_origins="*"`` with none (any web page the user opens may call the
    tools through the user's browser); a ``public_url`` whose path does not end with the ``path_prefix`` the server
    serves under (clients would be sent to URLs the server does not answer, unless the proxy adds it).

    Called once listening succeeded: an address that cannot be bound gets its own error, not this.
    Then :func:`warn_about_views`.
    """
    from ..transports.url_path import normal_path

    config = runner.config
    public_path = normal_path(urlsplit(config.public_url).path.rstrip("/")) if config.public_url else ""
    if config.public_url and config.path_prefix and not public_path.endswith(config.path_prefix):
        log.warning(
            "public_url %s does not end with path_prefix %s: clients are sent to %smcp, which reaches this "
            "server (at %s/mcp) only if the proxy adds %s; if it forwards paths as they are, give "
            "public_url=%s%s/ (--public-url)",
            config.public_url, config.path_prefix, config.public_url, config.path_prefix, config.path_prefix,
            config.public_url.rstrip("/"), config.path_prefix,
        )
    if config.auth is None and not is_loopback(runner.host):
        from ..auth.verifiers import MCP_TOKEN_ENV

        # An exported but empty MCP_TOKEN (`export MCP_TOKEN=`, a container's `MCP_TOKEN=`) reads as
        # unset; the warning names it, since whoever set it likely meant a token.
        empty = " (MCP_TOKEN is set but empty)" if os.environ.get(MCP_TOKEN_ENV) == "" else ""
        log.warning(
            "serving on %s with no authorization%s: anyone who can reach the port can call every tool; "
            "pass token=... (or set MCP_TOKEN), or auth=..., or bind host='127.0.0.1'",
            runner.host or "all interfaces", empty,
        )
    origins = config.allowed_origins
    if config.auth is None and (origins == "*" or (isinstance(origins, (list, tuple, set, frozenset))
                                                    and "*" in origins)):
        log.warning(
            "allowed_origins '*' with no authorization: any web page open in a browser that reaches this server "
            "can call every tool (the Origin check is what stops them when there is no token); give the server a "
            "token (token=... or MCP_TOKEN), or name the origins that may call it (allowed_origins="
            "[\"https://app.example.org\"], --allowed-origins https://app.example.org)"
        )
    warn_about_views(runner.server.core)


def warn_about_views(core: ServerCore) -> None:
    """Log a warning for each tool whose view (``view=``, its ``_meta.ui.resourceUri``) no resource
    answers: a host that shows views would read nothing there. A view may be defined after the tool that
    names it, so this is checked when serving starts, not at registration; a view added while serving
    (a later notebook cell) is not checked again."""
    registry = core.registry
    for tool in registry.tools.values():
        ui = (tool.meta or {}).get("ui")
        uri = ui.get("resourceUri") if isinstance(ui, dict) else None
        if not isinstance(uri, str):
            continue
        try:
            registry.find_resource(uri)
        except ResourceNotFound:
            log.warning(
                "tool %r names the view %s (view=), which no @server.app_view defines: a host that shows views "
                "finds nothing there; define it with @server.app_view(%r) or correct the tool's view=",
                tool.name, uri, uri,
            )


def refuse_stdio_workers(workers: object, given: str | None, *, command_line: bool = False) -> None:
    """Refuse more than one process (``workers``) over stdio, the transport ``given`` names (else
    ``$MCP_TRANSPORT``): one process speaks to its one client on its stdin and stdout, so the processes would
    serve nothing more. The one rule of ``run(transport="stdio", workers=2)`` and of ``nanohubmcp run --transport
    stdio --workers 2`` (``command_line``: the message names the options, not the keywords).

    Raises:
        ConfigurationError: over stdio, ``workers`` above 1 (or no whole number of at least 1, as over HTTP);
            the message says what to change: "workers=2 serves HTTP only: over stdio one process serves its one
            client; leave workers= out, or serve with transport='http'" (``$MCP_TRANSPORT=stdio`` named when
            the variable chose stdio).
    """
    if resolve_transport(given) != "stdio":
        return
    count = cast(int, counted("run_workers", workers, "workers"))  # (4.0 is 4, "4" refused: as over HTTP)
    if count == 1:
        return
    chosen = "" if given else " ($MCP_TRANSPORT=stdio)"
    if command_line:
        named, keyword, http = f"--workers {count}", "--workers", "--transport http"
    else:
        named, keyword, http = f"workers={count}", "workers=", "transport='http'"
    raise ConfigurationError(f"{named} serves HTTP only: over stdio{chosen} one process serves its one client; "
                             f"leave {keyword} out, or serve with {http}")


def check_workers(server: Servable, value: object) -> int:
    """``run(workers=value)`` as the int of processes to serve with (any whole number: ``4.0``, numpy's
    ``int64(4)``, as every count of the server reads it, :mod:`~nanohubmcp.protocol.counts`); refused: no whole
    number of at least 1, more than :func:`~nanohubmcp.transports.limit_option.most_workers` (8 per CPU, never fewer
    than 64), several processes without a shared state store (each would answer the others' sessions with 404), or with
    one that does not answer (each worker would fail on it and be started again, for ever).

    Raises:
        ConfigurationError: the message says what to set ("workers must be a number of processes >= 1, not 1.5;
            write a whole number: 2").
    """
    workers = cast(int, counted("run_workers", value, "workers"))
    if workers == 1:
        return workers  # (the usual case: the command-line options' module, argparse with it, stays unloaded)
    from ..transports.limit_option import most_workers, workers_take

    most = most_workers()
    if workers > most:  # a typo (40000 for 4) forked until the machine stopped answering (trial42 T42-18)
        raise ConfigurationError(whole_refusal("workers", workers_take(most), value))  # (1e30 as given, not its int)
    if not server.core.state_url.shared:
        raise ConfigurationError(
            f"workers={workers} needs a shared state store, or each process would answer the others' sessions "
            "with 404: pass state_url='redis://HOST:6379/0' to MCPServer (or set NANOHUBMCP_STATE_URL, or "
            "nanohubmcp run --state-url)"
        )
    reach(server.core.state_url)  # once, before forking: a worker failing on it would be started again
    return workers


def token_required(server: Servable, transport: str = "http") -> bool:
    """Whether ``server`` served over ``transport`` (``"http"`` or ``"stdio"``) takes requests only with a bearer
    token, whatever token its start is given: over stdio when it has ``auth=`` (:func:`serve_stdio
    <nanohubmcp.serving.serve_stdio>` checks ``$MCP_TOKEN`` with it); over HTTP then too, and when it must not
    serve without one (``require_token``, also made by an app file's own ``server.run(token=...)``,
    :func:`~nanohubmcp.nanohub.child.load_app`): :func:`verifier` refuses to start it with none, and given one it
    checks it. What serving reads, and what ``nanohubmcp server-json`` declares (one reading for both)."""
    if server.auth is not None:
        return True
    return transport != "stdio" and server.token_requirement is not None


def verifier(server: Servable, token: str | None) -> Any:
    """The verifier serving ``server`` with ``token`` (see ``MCPServer(auth=...)``), or None.

    Raises:
        ConfigurationError: ``server`` serves only with authorization (``require_token``) and none is
            configured: no ``token``, no ``$MCP_TOKEN``, no ``auth=`` (the message says how to give one).
    """
    from ..auth.verifiers import MCP_TOKEN_ENV, resolve, token_required_message

    found = resolve(server.auth, token)
    if found is None and server.token_requirement is not None:
        error = ConfigurationError(token_required_message(server.token_requirement))
        error.variable = MCP_TOKEN_ENV  # what is missing, its message names it: one line and exit 2 from a command
        raise error
    return found


def is_loopback(host: str) -> bool:
    """True for an address only this machine reaches (``127.0.0.0/8``, ``::1``, ``localhost``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
