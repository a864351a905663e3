"""``KernelSession``: the MCP server a notebook builds cell by cell, and its lifecycle.

A plain domain class (no IPython import): the magics parse cells and call it; it owns the
``MCPServer``, the components each cell registered, the runner mode, the proxy view, a
bounded log of server events and the traceback of the last call that raised (clients get only
the message; ``%mcp log`` shows the traceback to the notebook's user). Registering each cell's
component is the job of its :class:`nanohubmcp.jupyter.cell_components.CellRegistry`
(``session.components``). It starts the server on
first use, restarts it when the ``NanohubMCP`` settings change, and rebuilds it (keeping every
component) when the server's identity changes.

Example (what ``%%mcp_tool`` does, minus the cell parsing):
    ```python
    session = KernelSession(NanohubMCP(port=0))
    session.components.add_tool(add, ToolSpec(), CellOutput.capture(shell))
    session.ensure_started()
    session.mcp_url          # 'http://127.0.0.1:43117/mcp'
    ```
"""

from __future__ import annotations

import asyncio
import collections
import secrets
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import ConfigurationError
from ..facade import MCPServer
from ..server.provenance.tool_options import resolve_enabled as resolve_provenance
from ..server.wire.trace_context import resolve as resolve_tracing
from ..state import resolve as resolve_state_url
from . import routes
from .cell_components import CellRegistry, Entry
from .config import NanohubMCP
from .display import NAME_NOTE, first_line
from .hub import HubView, detect_hub
from .kernel_exit import EXIT_STOP_SECONDS, stop_server
from .progress_bar import CellProgressBars
from .tokens import notebook_token
from .trait_groups import LIMIT_TRAITS, REBUILD_TRAITS, RESTART_TRAITS, RESULT_TRAITS, SERVE_LIMIT_TRAITS

if TYPE_CHECKING:
    from traitlets.utils.bunch import Bunch

__all__ = ["Entry", "KernelSession"]

LOG_LINES = 500
"""Events kept for ``%mcp log`` (a ring buffer; older lines are dropped)."""


class KernelSession:
    """The notebook's server: components by cell, start/stop/restart, status.

    Args:
        config: the ``NanohubMCP`` settings (observed until :meth:`close`).
        notify: called with one line of text when a background change (a restart after
            ``%config``) succeeds or fails; default: print to stderr.

    Attributes:
        server: the ``MCPServer`` (a new one when the server's identity changes).
        components: the :class:`~nanohubmcp.jupyter.cell_components.CellRegistry` of the cells'
            tools, resources, views and prompts.
    """

    def __init__(self, config: NanohubMCP, *, notify: Callable[[str], None] | None = None) -> None:
        self.config = config
        self.notify = notify or (lambda text: print(text, file=sys.stderr))
        self.hub = HubView(None, "not started")
        self.log: collections.deque[str] = collections.deque(maxlen=LOG_LINES)
        self._unsubscribe: Callable[[], None] | None = None
        self._mode: str | None = None
        self._saved_switch: float | None = None  # the interpreter's switch interval to restore
        self._set_switch: float | None = None  # the one the start set (restored only while still in force)
        self._token_key = f"cells-{secrets.token_hex(8)}"  # this session's generated token (tokens.py)
        self.job_processes: set[str] = set()
        """The job store process tokens of this kernel's servers (``%mcp jobs`` lists their jobs)."""
        self.server = self._build()
        self.components = CellRegistry(lambda: self.server, lambda: self.config.tool_timeout)
        config.observe(self._on_config, names=[*RESTART_TRAITS, *REBUILD_TRAITS])
        config.observe(self._on_results, names=list(RESULT_TRAITS))
        config.observe(self._on_tool_timeout, names=["tool_timeout"])

    # -- the server object ---------------------------------------------------------------
    def _build(self) -> MCPServer:
        cfg = self.config
        server = MCPServer(
            cfg.name,
            version=cfg.version,
            instructions=cfg.instructions,
            tool_timeout=cfg.tool_timeout,  # the core bounds every call, as a script's server does
            max_inline_bytes=cfg.max_inline_bytes,
            figure_dpi=cfg.figure_dpi,
            state_dir=cfg.state_dir,
            job_executor=cfg.job_executor,
            dask_address=cfg.dask_address,
            executor_options=dict(cfg.executor_options),
            # The environment's NANOHUBMCP_STATE_URL wins over c.NanohubMCP.state_url.
            state_url=resolve_state_url(None, cfg.state_url).url,
            # The environment's NANOHUBMCP_TRACING wins over c.NanohubMCP.tracing.
            tracing=resolve_tracing(None, cfg.tracing),  # type: ignore[arg-type]  # an Enum trait's value
            # The environment's NANOHUBMCP_PROVENANCE wins over c.NanohubMCP.provenance.
            provenance=resolve_provenance(None, cfg.provenance),
            **{limit: getattr(cfg, limit) for limit in LIMIT_TRAITS},
        )
        self.job_processes.add(server.runtime.jobs.process)
        if self._unsubscribe is not None:
            self._unsubscribe()
        unsubscribe_log = server.events.subscribe(self._record)
        unsubscribe_bars = server.events.subscribe(CellProgressBars().on_event, ["call_progress", "call_finished"])

        def unsubscribe() -> None:
            unsubscribe_log()
            unsubscribe_bars()

        self._unsubscribe = unsubscribe
        routes.follow(server)
        return server

    def _record(self, event: str, data: dict[str, Any]) -> None:
        stamp = time.strftime("%H:%M:%S")
        if event == "call_finished":
            outcome = "ok" if data.get("ok") else f"error: {data.get('error')}"
            target = f" {data['name']}" if data.get("name") else ""
            line = f"{data.get('method')}{target} {outcome} ({data.get('duration_ms', 0.0):.1f} ms)"
        elif event in ("server_started", "server_stopped"):
            line = f"{event.replace('_', ' ')} {data.get('url') or ''}".rstrip()
        elif event.endswith("_changed"):
            line = f"{event.replace('_', ' ')}: {data.get('name')}"
        else:
            return  # call_started: its call_finished line says everything
        self.log.append(f"{stamp} {line}")

    # -- serving -------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        """True while the server is serving."""
        return self.server.running

    @property
    def mode(self) -> str:
        """The mode the server runs in (or will run in)."""
        return self._mode or self.config.mode

    def start(self) -> bool:
        """Start serving with the current settings; False when already serving.

        Raises:
            ConfigurationError: the port is busy or the address unusable, or "kernel" mode was
                asked for outside the kernel's event loop (the message says which).
        """
        if self.server.running:
            return False
        cfg = self.config
        loop = "thread"
        if cfg.mode == "kernel":
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                raise ConfigurationError(
                    "NanohubMCP.mode = 'kernel' needs the kernel's event loop: start the server from a cell "
                    "(%mcp start)"
                ) from None
            loop = "current"
        self.hub = (
            HubView(None, "public_url set in the configuration")
            if cfg.public_url
            else (detect_hub(cfg.port) if cfg.port else HubView(None, "port 0: detected after binding"))
        )
        options = {
            "host": cfg.host,
            "path_prefix": cfg.path_prefix,
            "allowed_origins": cfg.allowed_origins,
            "loop": loop,
            "token": self.token or "",
            **{limit: getattr(cfg, limit) for limit in SERVE_LIMIT_TRAITS},
        }
        if not self.token:
            # Off by the setting, or by an empty $MCP_TOKEN the kernel inherited: the warning names which.
            cause, remedy = (("NanohubMCP.token is ''", "unset it") if cfg.token is not None
                             else ("MCP_TOKEN is set but empty", "unset it or set it to a token"))
            self.notify(
                f"nanohubmcp: warning: {cause} - the MCP server answers anyone who reaches "
                f"its port (on a shared machine, every user); {remedy} to require a token"
            )
        self.server.start(port=cfg.port, public_url=cfg.public_url or self.hub.public_url, **options)
        if not cfg.public_url and not cfg.port and self.server.port:
            # Port 0: the public URL names the port, known only now; re-serve on that port with it.
            hub = detect_hub(self.server.port)
            if hub.public_url:
                port = self.server.port
                self.server.stop()
                self.server.start(port=port, public_url=hub.public_url, **options)
            self.hub = hub
        if cfg.public_url and self.server.port:
            self.hub = HubView(None, self.hub.reason, routes.configured_note(cfg.public_url, self.server.port))
        self._mode = cfg.mode
        if loop == "thread" and cfg.switch_interval and self._saved_switch is None:
            self._saved_switch = sys.getswitchinterval()
            sys.setswitchinterval(min(self._saved_switch, cfg.switch_interval))
            self._set_switch = sys.getswitchinterval()  # (as the interpreter keeps it: it rounds to 1 µs)
        return True

    def ensure_started(self) -> bool:
        """Start unless serving; True when this call started it."""
        return self.start()

    def stop(self) -> bool:
        """Stop serving and free the port; False when it was not serving."""
        was_running = self.server.running
        self.server.stop()
        self._mode = None
        if self._saved_switch is not None:
            if sys.getswitchinterval() == self._set_switch:  # one the user set meanwhile is theirs: kept
                sys.setswitchinterval(self._saved_switch)
            self._saved_switch = self._set_switch = None
        return was_running

    def restart(self) -> None:
        """Stop, then start with the current settings (raises like :meth:`start`)."""
        self.stop()
        self.start()

    def _rebuild(self) -> None:
        """A new server with the current identity, carrying every registered component over."""
        old = self.server
        old.stop()
        self.server = self._build()
        self.components.reregister()

    def _on_tool_timeout(self, change: Bunch) -> None:
        """``%config NanohubMCP.tool_timeout`` applies to the next call of every tool, Rappture and Sim2L too."""
        self.server.runtime.set_tool_timeout(change["new"])

    def _on_results(self, change: Bunch) -> None:
        self.server.runtime.set_result_option(change["name"], change["new"])

    def _on_config(self, change: Bunch) -> None:
        if change["old"] == change["new"]:
            return
        was_running = self.server.running
        try:
            if change["name"] in REBUILD_TRAITS:
                self._rebuild()
            if was_running:
                self.restart()
                self.notify(f"MCP server restarted: {self.mcp_url}")
        except Exception as exc:  # a busy new port: say so in the %config cell, don't raise in traitlets
            self.notify(
                f"nanohubmcp: the MCP server could not restart after NanohubMCP.{change['name']} "
                f"changed: {exc}. It is stopped; fix the setting, then run %mcp start"
            )

    def close(self) -> None:
        """Stop serving, stop observing the settings and the server's events (extension unload)."""
        self.stop()
        self.config.unobserve(self._on_config, names=[*RESTART_TRAITS, *REBUILD_TRAITS])
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def close_at_exit(self, within: float = EXIT_STOP_SECONDS) -> None:
        """Interpreter exit (:mod:`.kernel_exit`'s hook): stop the server within ``within`` seconds: calls still
        running get the stopping server's error, and their provenance records are written, before a Jupyter server's
        kernel manager sends the kernel SIGTERM. A "kernel" mode server's loop, the kernel's, was stopped by the
        shutdown request (not closed): the stop runs it again for its drain."""
        if self._mode is not None:
            stop_server(self.server, within)

    # -- where clients connect -----------------------------------------------------------
    @property
    def local_url(self) -> str | None:
        """``http://<host>:<port><prefix>/`` on this machine while serving, else None."""
        port = self.server.port
        if not self.server.running or port is None:
            return None
        host = self.config.host
        host = "127.0.0.1" if host in ("", "0.0.0.0", "::") else host
        host = f"[{host}]" if ":" in host else host
        prefix = "/" + self.config.path_prefix.strip("/") if self.config.path_prefix.strip("/") else ""
        return f"http://{host}:{port}{prefix}/"

    @property
    def public_url(self) -> str | None:
        """The base URL clients should use: the configured or nanoHUB URL, else :attr:`local_url`."""
        return self.server.url if self.server.running else None

    @property
    def mcp_url(self) -> str | None:
        """The Streamable HTTP endpoint (``<public_url>mcp``) while serving."""
        base = self.public_url
        return f"{base}mcp" if base else None

    @property
    def token(self) -> str | None:
        """The bearer token clients send (see ``NanohubMCP.token``); None when turned off."""
        return notebook_token(self.config.token, self._token_key)

    def runs_on_kernel(self, name: str) -> bool:
        """True when tool ``name`` runs on the kernel's loop (``async def`` or ``--main``)."""
        entry = self.components.entries.get(("tool", name))
        return entry is not None and entry.policy == "kernel"

    def status(self) -> dict[str, Any]:
        """A snapshot for displays and panels (plain JSON-able values)."""
        tools = []
        for tool in self.server.runtime.tools.values():
            entry = self.components.entries.get(("tool", tool.name))
            tools.append(
                {
                    "name": tool.name,
                    "description": first_line(tool.description),
                    "runs": ("job" if tool.background else "") or (entry.policy if entry else "server"),
                    "cell": entry.cell.msg_id if entry else None,
                }
            )
        return {
            "name": self.server.name,
            "version": self.server.version,
            "running": self.running,
            "mode": self.mode,
            "host": self.config.host,
            "port": self.server.port,
            "local_url": self.local_url,
            "public_url": self.public_url,
            "mcp_url": self.mcp_url,
            "token": self.token if self.running else None,
            "hub": self.hub.public_url is not None,
            "hub_reason": self.hub.reason,
            "streaming": self.hub.streaming,
            "name_note": NAME_NOTE if self.config.named_unknowing() else "",
            "jupyter_token": self.hub.jupyter_token,
            "tools": tools,
            "resources": sorted(key for kind, key in self.components.entries if kind == "resource"),
            "prompts": sorted(key for kind, key in self.components.entries if kind == "prompt"),
            "stuck_calls": self.server.runtime.stuck_calls,
        }
