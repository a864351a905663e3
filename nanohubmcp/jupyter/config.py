"""``NanohubMCP``: the notebook server's settings, as a traitlets Configurable.

Set them in a profile's ``ipython_config.py`` or ``ipython_kernel_config.py``::

    c.NanohubMCP.port = 8001
    c.NanohubMCP.mode = "kernel"

or live in a notebook, where a change to ``host``, ``port``, ``mode``, ``path_prefix``,
``allowed_origins``, ``public_url``, ``name``, ``version``, ``instructions`` or ``provenance`` restarts a running
server, and ``tool_timeout``, ``max_inline_bytes`` and ``figure_dpi`` apply to the next call::

    %config NanohubMCP.port = 0        # any free port
    %config NanohubMCP                 # list the options with their current values

A value a trait refuses (``%config NanohubMCP.port = -5``) is reported in one line on stderr,
like a ``UsageError``, and the setting keeps its value. (IPython's ``%config`` would otherwise log
the error through the root logger, as ``ERROR:root:...``.)

This class only holds values; ``nanohubmcp.jupyter.session.KernelSession`` observes them.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from traitlets import Bool, Dict, Enum, Float, Integer, List, TraitError, Unicode, Union, default, validate
from traitlets.config import Configurable

if TYPE_CHECKING:
    from traitlets.config import Config
    from traitlets.utils.bunch import Bunch

__all__ = ["NanohubMCP"]

RESTART_TRAITS = ("host", "port", "mode", "path_prefix", "allowed_origins", "public_url", "token")
"""Traits whose change restarts a running server on its new address or URL."""
REBUILD_TRAITS = ("name", "version", "instructions", "state_dir", "job_executor", "dask_address", "executor_options",
                  "state_url", "tracing", "provenance")
"""Traits baked into the server's identity: a change rebuilds the server (tools are kept)."""
RESULT_TRAITS = ("max_inline_bytes", "figure_dpi")
"""Traits shaping tool results: a change applies to the next call."""


class NanohubMCP(Configurable):
    """Settings of the MCP server a notebook serves (``c.NanohubMCP.*``, ``%config NanohubMCP``)."""

    name = Unicode(
        help="Server name sent to clients (serverInfo.name). Default: the notebook's file name when "
        "Jupyter Server tells the kernel (JPY_SESSION_NAME), else 'notebook'.",
    ).tag(config=True)

    version = Unicode("1.0.0", help="Server version sent to clients (serverInfo.version).").tag(config=True)

    host = Unicode(
        "127.0.0.1",
        help="Interface to listen on. 127.0.0.1 keeps the server private to this machine; nanoHUB's "
        "proxy reaches it there. Use 0.0.0.0 only on a trusted network.",
    ).tag(config=True)

    port = Integer(
        8000,
        help="TCP port to listen on; 0 picks any free port (see %mcp url). A busy port is reported, "
        "never silently replaced.",
    ).tag(config=True)

    mode = Enum(
        ["thread", "kernel"],
        default_value="thread",
        help="Where the server runs: 'thread' = an event loop of its own in a background thread, "
        "answering while cells run; 'kernel' = the kernel's own event loop, answering only between "
        "cells (and during 'await').",
    ).tag(config=True)

    path_prefix = Unicode(
        "",
        help="Path the server serves under, for a proxy that does not strip it (e.g. '/weber/...'). "
        "Empty behind jupyter-server-proxy, which strips its own prefix.",
    ).tag(config=True)

    allowed_origins = Union(
        [Enum(["*"]), List(Unicode())],
        default_value=None,
        allow_none=True,
        help="Browser origins allowed to call the server: None = loopback plus the public URL's "
        "origin; a list such as ['https://example.org']; or '*' for any.",
    ).tag(config=True)

    tool_timeout = Float(
        60.0,
        allow_none=True,
        help="Seconds a tool, resource or prompt call may take before the client gets a tool error "
        "('kernel busy' when it could not even start because a cell was running). None (or inf) = no limit; "
        "0 is refused. "
        "--async job tools are never timed out.",
    ).tag(config=True)

    max_inline_bytes = Integer(
        256 * 1024,
        allow_none=True,
        help="A tool result whose JSON (or image) is larger than this many bytes is kept as a resource "
        "of the server and the client gets a resource_link plus a preview, instead of flooding the "
        "model's context. None = always inline.",
    ).tag(config=True)

    figure_dpi = Float(
        None,
        allow_none=True,
        help="Dots per inch of matplotlib figures returned by tools; None = each figure's own dpi "
        "(the PNG is then figsize x dpi pixels).",
    ).tag(config=True)

    instructions = Unicode(
        None, allow_none=True, help="Text telling clients how to use this server (initialize result)."
    ).tag(config=True)

    switch_interval = Float(
        0.001,
        allow_none=True,
        help="In thread mode, the interpreter's thread switch interval (seconds, sys.setswitchinterval) "
        "while the server runs, restored when it stops. A busy cell holds the GIL; Python's default "
        "5 ms lets each request wait up to 5 ms per hand-over, 1 ms keeps the server responsive "
        "(ping p99 ~40 ms -> ~15 ms measured). None = leave the interpreter's setting alone.",
    ).tag(config=True)

    state_dir = Unicode(
        None,
        allow_none=True,
        help="Directory of the job store (jobs.sqlite3), kept across kernel restarts. None: "
        "$NANOHUBMCP_STATE_DIR, else $SESSIONDIR/nanohubmcp/<name> on nanoHUB, else "
        "~/.local/share/nanohubmcp/<name>.",
    ).tag(config=True)

    state_url = Unicode(
        None,
        allow_none=True,
        help="Where sessions and streams shared by several server processes live, e.g. "
        "redis://127.0.0.1:6379/0 (needs the redis extra). None: $NANOHUBMCP_STATE_URL, else this "
        "kernel's memory (the default: nothing to install or start).",
    ).tag(config=True)

    tracing = Enum(
        [True, False, "auto"],
        "auto",
        help="OpenTelemetry spans and metrics per request (needs the otel extra): True, False, or 'auto' "
        "(on when the kernel configured an OpenTelemetry tracer provider before the server started). "
        "$NANOHUBMCP_TRACING wins.",
    ).tag(config=True)

    provenance = Bool(
        True,
        help="Record every tool call and job (arguments, result digest, the cell's code hash, versions) in "
        "the state directory, named in each result's _meta (%mcp history lists them). False: no records. "
        "$NANOHUBMCP_PROVENANCE (1/0) wins; a tool's own %%mcp_tool --no-provenance turns it off for that tool.",
    ).tag(config=True)

    job_executor = Enum(
        ["threads", "processes", "dask", "slurm", "submit"],
        "threads",
        help="Where --async job tools run: 'threads' (the kernel's pool), 'processes' (a process pool), "
        "'dask' (a dask.distributed cluster: dask_address, else DASK_SCHEDULER_ADDRESS, else a local "
        "cluster), 'slurm' (each job a Slurm batch job) or 'submit' (nanoHUB's submit command). A tool's "
        "own %%mcp_tool --executor wins.",
    ).tag(config=True)

    executor_options = Dict(
        {},
        help="Options of the job executors by executor name, e.g. {'slurm': {'partition': 'debug', "
        "'time': '1:00:00'}, 'submit': {'venue': 'workspace'}}; top-level options are for job_executor. "
        "A tool's own %%mcp_tool --slurm-time ... / --executor-option KEY=VALUE go over these.",
    ).tag(config=True)

    dask_address = Unicode(
        None,
        allow_none=True,
        help="Dask scheduler address for job_executor='dask' (None: DASK_SCHEDULER_ADDRESS, else a "
        "LocalCluster started on first use).",
    ).tag(config=True)

    public_url = Unicode(
        None,
        allow_none=True,
        help="URL to advertise instead of the detected one (None: the nanoHUB weber URL when the kernel "
        "runs on a hub, else http://127.0.0.1:<port>/).",
    ).tag(config=True)

    token = Unicode(
        None,
        allow_none=True,
        help="Bearer token every client must send ('Authorization: Bearer <token>'). None: $MCP_TOKEN "
        "when set (set and empty: no token), else a random token generated when the kernel's server "
        "first starts (%mcp token shows it; nothing else does, as a cell's output is saved with the notebook), "
        "as Jupyter's own server does: on "
        "a shared login node loopback is not private. '' turns authorization off (a warning says so).",
    ).tag(config=True)

    def update_config(self, config: Config) -> None:
        """Apply ``config`` (what ``%config NanohubMCP.x = v`` calls); a refused value is reported, not raised.

        On a ``TraitError`` nothing of ``config`` is applied; the message goes to stderr as
        ``UsageError: <why>``.
        """
        try:
            super().update_config(config)
        except TraitError as exc:
            print(f"UsageError: {str(exc).rstrip('.')}; the setting is unchanged", file=sys.stderr)

    @default("name")
    def _default_name(self) -> str:
        notebook = os.path.basename(os.environ.get("JPY_SESSION_NAME", "")).rsplit(".ipynb", 1)[0]
        cleaned = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in notebook).strip("-")
        return cleaned or "notebook"

    @validate("port")
    def _check_port(self, proposal: Bunch) -> int:
        value = int(proposal["value"])
        if not 0 <= value <= 65535:
            raise TraitError(f"NanohubMCP.port must be between 0 and 65535 (0 = any free port), not {value}")
        return value

    @validate("token")
    def _check_token(self, proposal: Bunch) -> str | None:
        from ..auth.verifiers import checked_token  # the rule every server's static token follows
        from ..errors import ConfigurationError

        value = proposal["value"]
        if not value:  # None: the default; "": authorization off
            return value
        try:
            return checked_token(value)
        except ConfigurationError as exc:
            raise TraitError(f"NanohubMCP.token: {exc}") from None

    @validate("tool_timeout")
    def _check_timeout(self, proposal: Bunch) -> float | None:
        from ..errors import ConfigurationError
        from ..server.options import checked_timeout  # the rule MCPServer(tool_timeout=) follows

        try:
            return checked_timeout(proposal["value"])
        except ConfigurationError as exc:
            raise TraitError(f"NanohubMCP.{exc}") from None

    @validate("max_inline_bytes")
    def _check_inline(self, proposal: Bunch) -> int | None:
        value = proposal["value"]
        if value is not None and value < 0:
            raise TraitError("NanohubMCP.max_inline_bytes must be a number of bytes (>= 0), or None")
        return value

    @validate("figure_dpi")
    def _check_dpi(self, proposal: Bunch) -> float | None:
        value = proposal["value"]
        if value is not None and value <= 0:
            raise TraitError("NanohubMCP.figure_dpi must be a positive number of dots per inch, or None")
        return value

    @validate("name")
    def _check_name(self, proposal: Bunch) -> str:
        if not str(proposal["value"]).strip():
            raise TraitError("NanohubMCP.name must not be empty")
        return str(proposal["value"])
