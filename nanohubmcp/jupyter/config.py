"""``NanohubMCP``: the notebook server's settings, as a traitlets Configurable.

Set them in a profile's ``ipython_config.py`` or ``ipython_kernel_config.py``::

    c.NanohubMCP.port = 8001
    c.NanohubMCP.mode = "kernel"

or live in a notebook, where a change to ``host``, ``port``, ``mode``, ``path_prefix``, ``allowed_origins``,
``public_url``, ``name``, ``version``, ``instructions``, ``provenance`` or a limit kept by the server
(``max_stuck_calls``, ``max_kept_bytes``, ``max_request_bytes``, ...) restarts a running server, and ``tool_timeout``,
``max_inline_bytes``, ``max_result_bytes``, ``max_event_bytes`` and ``figure_dpi`` apply to the next call::

    %config NanohubMCP.port = 0        # any free port
    %config NanohubMCP                 # list the options with their current values
    %config NanohubMCP.max_result_bytes = 67108864   # 64 MiB per answer (a literal: the export carries it)

A value a trait refuses (``%config NanohubMCP.port = -5``, or a ``max_request_bytes`` above
``max_buffered_bytes``) is reported in one line on stderr, like a ``UsageError``, and the setting keeps its
value; the shell's own config (``get_ipython().config.NanohubMCP``), where ``%config`` would put the line too,
keeps its entries as they were, so ``%reload_ext nanohubmcp`` does not find the refused value there
(:mod:`.refused_config`). (IPython's ``%config`` would otherwise log the error through the root logger, as
``ERROR:root:...``.)

This class only holds values; ``nanohubmcp.jupyter.session.KernelSession`` observes them. What each setting
takes is checked by :mod:`.setting_checks`, called from the validators below.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from traitlets import Bool, Dict, Enum, List, TraitError, Unicode, Union, default, validate
from traitlets.config import Configurable

from ..protocol import counts
from ..protocol.byte_limits import takes
from ..protocol.client_event_cap import CLIENT_EVENT_BYTES
from ..server.calls.workers import MAX_ABANDONED
from ..server.jobs import DEFAULT_MAX_JOBS, DEFAULT_MAX_JOBS_PER_OWNER, DEFAULT_MAX_RESULT_BYTES
from ..server.options import MAX_FIGURE_DPI, MIN_FIGURE_DPI
from ..server.provenance.tool_options import DEFAULT_CACHE_BYTES
from ..server.results import DEFAULT_MAX_ANSWER_BYTES, DEFAULT_STORE_BYTES, DEFAULT_STORE_BYTES_PER_OWNER
from . import setting_checks as checks
from .limit_trait import Limit
from .notebook_cells import told_notebook_name
from .real_trait import Real
from .refused_config import drop_refused
from .setting_checks import MAX_SWITCH_SECONDS, MIN_SWITCH_SECONDS

if TYPE_CHECKING:
    from traitlets.config import Config
    from traitlets.utils.bunch import Bunch

__all__ = ["NanohubMCP"]


class NanohubMCP(Configurable):
    """Settings of the MCP server a notebook serves (``c.NanohubMCP.*``, ``%config NanohubMCP``)."""

    name = Unicode(
        help="Server name sent to clients (serverInfo.name); it names the state directory too. Default: the "
        "notebook's file name when Jupyter Server tells the kernel (JPY_SESSION_NAME), as the script "
        "nanohubmcp export writes is named, else 'notebook'.",
    ).tag(config=True)

    version = Unicode("1.0.0", help="Server version sent to clients (serverInfo.version).").tag(config=True)

    host = Unicode(
        "127.0.0.1",
        help="Interface to listen on. 127.0.0.1 keeps the server private to this machine; nanoHUB's "
        "proxy reaches it there. Use 0.0.0.0 only on a trusted network.",
    ).tag(config=True)

    port = Limit(
        8000,
        minimum=0,
        takes="between 0 and 65535 (0 = any free port)",
        help="TCP port to listen on; 0 picks any free port (see %mcp url). A busy port is reported, "
        "never silently replaced.",
    ).tag(config=True)

    mode = Enum(
        ["thread", "kernel"],
        default_value="thread",
        help="Where the server runs: 'thread' = an event loop of its own in a background thread, "
        "answering while cells run; 'kernel' = the kernel's own event loop, answering only between "
        "cells (and during 'await'): while a cell runs nothing answers, not even a ping, every request "
        "waits for the cell to end and tool_timeout's 'kernel busy' does not apply.",
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

    tool_timeout = Real(
        60.0,
        allow_none=True,
        takes="a positive number of seconds, or None for no limit",
        help="Seconds a tool, resource or prompt call may take before the client gets a tool error "
        "('kernel busy' when it could not even start because a cell was running, in thread mode; in kernel "
        "mode a request waits for the cell to end). None (or inf, or an int past a float's range such as "
        "10**400) = no limit; 0, a negative number, NaN, a bool and a value below 0.001 (a millisecond, the "
        "shortest wait the event loop times; 1e-300) are refused. "
        "--async job tools are never timed out.",
    ).tag(config=True)

    max_inline_bytes = Limit(
        256 * 1024,
        minimum=0,
        allow_none=True,
        no_limit=True,
        takes=takes("max_inline_bytes"),
        help="A tool result whose JSON (or image) is larger than this many bytes is kept as a resource "
        "of the server and the client gets a resource_link plus a preview, instead of flooding the "
        "model's context. None (or inf) = always inline.",
    ).tag(config=True)

    figure_dpi = Real(
        None,
        allow_none=True,
        takes=f"a number of dots per inch from {MIN_FIGURE_DPI} to {MAX_FIGURE_DPI}, or None for each figure's own",
        help=f"Dots per inch of matplotlib figures returned by tools, from {MIN_FIGURE_DPI} to {MAX_FIGURE_DPI} "
        "(the PNG is figsize x dpi pixels: 15360 x 11520 for a 6.4 x 4.8 in figure at 2400); None = each "
        "figure's own dpi. A bool, NaN or a number outside the range is refused.",
    ).tag(config=True)

    max_result_bytes = Limit(
        DEFAULT_MAX_ANSWER_BYTES,
        minimum=1,
        allow_none=True,
        no_limit=True,
        takes=takes("max_result_bytes"),
        help="Most bytes of JSON one tool result may put in an answer: every REST answer, and an MCP result "
        "not kept as a resource (max_inline_bytes = None, or a tool with an output schema). A larger result "
        "fails the call with a tool error naming this limit. Default 268435456 (256 MiB); None (or inf) = no limit "
        "(0 is refused).",
    ).tag(config=True)

    max_event_bytes = Limit(
        CLIENT_EVENT_BYTES, minimum=CLIENT_EVENT_BYTES, allow_none=True, no_limit=True,
        takes=takes("max_event_bytes"),
        help="Most bytes of one server-sent event an answer or a question to the client goes in; a larger one is "
        "an error naming its size. Default 1048576 (1 MiB), the official mcp Python client's cap (it drops a larger "
        "event and the call with it). None (or inf) = no bound, for clients reading larger events (TypeScript SDK).",
    ).tag(config=True)

    max_kept_bytes = Limit(
        DEFAULT_STORE_BYTES,
        minimum=1,
        takes=takes("max_kept_bytes"),
        help="Most bytes of large results (over max_inline_bytes) the server keeps as resources for all "
        "callers, and so the largest one result kept (a larger one fails its call saying so); the oldest are "
        "evicted when it is full. Default 536870912 (512 MiB).",
    ).tag(config=True)

    max_kept_bytes_per_owner = Limit(
        DEFAULT_STORE_BYTES_PER_OWNER,
        minimum=1,
        takes=takes("max_kept_bytes_per_owner"),
        help="Most bytes of large results one caller (its token's principal, else its session) keeps: their "
        "own oldest are evicted to keep a newer one, and reading an evicted link answers 'Resource evicted'. "
        "Also the most bytes of inputs its waiting slurm/submit jobs keep in their folders (a call past it "
        "makes no job). Default 134217728 (128 MiB).",
    ).tag(config=True)

    max_stuck_calls = Limit(
        MAX_ABANDONED,
        minimum=0,
        takes=counts.takes("max_stuck_calls"),
        help="Most calls past tool_timeout abandoned while their functions still run (each holds a thread "
        "until it returns; %mcp status counts them). At the limit a timed-out call keeps its worker, and new "
        "calls of sync tools are refused as busy until one returns. Default 64; 0 = no call is abandoned.",
    ).tag(config=True)

    max_job_result_bytes = Limit(
        DEFAULT_MAX_RESULT_BYTES,
        minimum=1,
        takes=takes("max_job_result_bytes"),
        help="Largest result of an --async job the job store keeps, as JSON; a larger one fails its job "
        "saying so. Default 16777216 (16 MiB).",
    ).tag(config=True)

    max_jobs = Limit(
        DEFAULT_MAX_JOBS,
        minimum=1,
        takes=counts.takes("max_jobs"),
        help="Jobs the job store keeps in all; a full store refuses new jobs saying so. Default 10000.",
    ).tag(config=True)

    max_jobs_per_owner = Limit(
        DEFAULT_MAX_JOBS_PER_OWNER,
        minimum=1,
        takes=counts.takes("max_jobs_per_owner"),
        help="Jobs the job store keeps for one caller (principal, else session). Default 1000.",
    ).tag(config=True)

    cache_max_bytes = Limit(
        DEFAULT_CACHE_BYTES,
        minimum=1,
        takes=takes("cache_max_bytes"),
        help="Bytes of results the result cache keeps for %%mcp_tool --cache tools (least recently used "
        "dropped first). Default 268435456 (256 MiB).",
    ).tag(config=True)

    # run()'s defaults, written out: nanohubmcp.serving imports this layer (the kernel's runner), not the reverse.
    max_request_bytes = Limit(
        16 * 1024 * 1024,
        minimum=1024,
        takes="a number of bytes >= 1024",
        help="Largest request body the server reads (a call's arguments, as JSON); a larger one is answered "
        "413. Default 16777216 (16 MiB). At most max_buffered_bytes: to go above it, raise that first (a value "
        "above it is refused, and the setting keeps its value).",
    ).tag(config=True)

    max_buffered_bytes = Limit(
        256 * 1024 * 1024,
        minimum=1024,
        takes="a number of bytes >= 1024",
        help="Most bytes of request bodies received at once over every connection, at least max_request_bytes; "
        "a body beyond it is answered 503 with Retry-After before it is read. Default 268435456 (256 MiB).",
    ).tag(config=True)

    max_buffered_bytes_per_principal = Limit(
        None,
        minimum=1024,
        allow_none=True,
        takes="a number of bytes >= 1024, or None",
        help="Most bytes of request bodies one principal (one token's caller) has received at once, at least "
        "max_request_bytes; a body of theirs beyond it is answered 503 with Retry-After before it is read, and "
        "other principals' are not. Default None: an eighth of max_buffered_bytes, at least "
        "max_request_bytes (33554432, 32 MiB, with the other defaults); max_buffered_bytes or more: no per-principal "
        "bound.",
    ).tag(config=True)

    max_unsent_bytes = Limit(
        256 * 1024 * 1024,
        minimum=1024 * 1024,
        takes="a number of bytes >= 1048576 (1 MiB)",
        help="Most bytes of answers held in all for clients that have not read them; beyond it connections "
        "are closed (a principal's over max_unsent_bytes_per_principal first), oldest first. Default 268435456 "
        "(256 MiB).",
    ).tag(config=True)

    max_unsent_bytes_per_principal = Limit(
        None,
        minimum=1024 * 1024,
        allow_none=True,
        takes="a number of bytes >= 1048576 (1 MiB), or None",
        help="The share of max_unsent_bytes one principal (one token's caller) holds for answers its clients have "
        "not read: beyond max_unsent_bytes, the connections of a principal over its share are closed first, so "
        "its unread answers do not cut another principal's download. Default None: an eighth of max_unsent_bytes, "
        "at least 1 MiB (33554432, 32 MiB, with the default); max_unsent_bytes or more: no per-principal share.",
    ).tag(config=True)

    instructions = Unicode(
        None, allow_none=True, help="Text telling clients how to use this server (initialize result)."
    ).tag(config=True)

    switch_interval = Real(
        0.001,
        allow_none=True,
        takes=f"a number of seconds from {MIN_SWITCH_SECONDS:f} to {MAX_SWITCH_SECONDS}, or None",
        help="In thread mode, the interpreter's thread switch interval (seconds, sys.setswitchinterval) "
        "while the server runs, restored when it stops unless you set another meanwhile; a value above the "
        "interpreter's own (5 ms by "
        "default) leaves it. A busy cell holds the GIL; Python's default "
        "5 ms lets each request wait up to 5 ms per hand-over, 1 ms keeps the server responsive "
        "(ping p99 ~40 ms -> ~15 ms measured). None = leave the interpreter's setting alone. From 0.000001 "
        "(the interpreter's resolution) to 1; NaN, 0, a negative number and a bool are refused. Read when the "
        "server starts: a change applies at the next start (%mcp stop, then %mcp start).",
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
        ``UsageError: <why>``, and ``config`` loses its ``NanohubMCP`` section, so the shell, to which ``%config``
        hands it next, does not keep the refused value for the next load (``%reload_ext nanohubmcp``).
        """
        in_force = self.config  # the base class works on a copy, merged only if every value is taken
        try:
            super().update_config(config)
        except TraitError as exc:
            drop_refused(config, type(self).__name__, None if self.parent is None else self.parent.config, in_force)
            print(f"UsageError: {str(exc).rstrip('.')}; the setting is unchanged", file=sys.stderr)

    @default("name")
    def _default_name(self) -> str:
        return told_notebook_name() or "notebook"

    def named_unknowing(self) -> bool:
        """Whether the server is ``notebook`` by default: no ``name`` was set and the kernel was not told its
        notebook's file name, so an export of the notebook (named after its file) is another server."""
        section = self.config.get(type(self).__name__)
        return not told_notebook_name() and not (section is not None and "name" in section)

    @validate(*checks.CHECKS)
    def _check(self, proposal: Bunch) -> object:
        """A value its check (:data:`.setting_checks.CHECKS`) refuses raises ``TraitError``; the check's is kept."""
        return checks.CHECKS[proposal["trait"].name](proposal["value"])

    @validate("max_request_bytes", "max_buffered_bytes", "max_buffered_bytes_per_principal")
    def _check_request_fits_buffer(self, proposal: Bunch) -> int | None:
        """Judged together (:func:`.setting_checks.checked_limit_pair`): a ``%config`` line breaking their order
        is refused (the running server keeps serving); a profile setting them is checked once all are set."""
        limits = {"max_request_bytes": self.max_request_bytes, "max_buffered_bytes": self.max_buffered_bytes,
                  "max_buffered_bytes_per_principal": self.max_buffered_bytes_per_principal}
        return checks.checked_limit_pair(proposal["trait"].name, proposal["value"], limits)
