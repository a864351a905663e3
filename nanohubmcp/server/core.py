"""``ServerCore``: one MCP server, independent of any transport, composed by one constructor.

The constructor makes what every request passes — the event bus, the registry, the sessions, the pending client
requests, what a tool's run reads (:class:`~.calls.call_parts.CallParts`), the job service over it and the job
executors (:class:`~.executors.job_service.JobService`), the dispatcher over the method tables with its pipeline —
and checks every option (:mod:`.options`). What a first answer does not use (the job, result and provenance stores,
the result cache, the stateless era's state) is made at its first use by :class:`~.first_use.FirstUse`, whose typed
properties the core's pass on; a job store an earlier process left on disk is opened when serving starts, so its
jobs are settled then (through the job service's hooks). Where the state lives — the state directory; with a shared
store, the link that reads its key before the port is bound and connects when serving starts
(:meth:`ServerCore.attach`) — is :class:`~.wire.state_dir.StateLink`'s. Nothing is assigned to it from outside
afterwards. It is the top of ``server/``: each part is typed against a protocol of what it reads, never against this
class. The facade builds one; transports reach it through :mod:`.connection`; only the runner, stdio and the
in-memory transport hold it.
"""

from __future__ import annotations

import asyncio
import os
from concurrent.futures import Executor
from typing import TYPE_CHECKING, Any, cast

from ..state import StateURL
from ..state import parse as parse_state_url
from .calls.call_parts import CallParts
from .calls.workers import MAX_ABANDONED, WorkerPool
from .dispatcher import Dispatcher
from .executors import JobExecutor
from .executors.job_service import JobService
from .executors.runners import JobRunners
from .first_use import FirstUse
from .jobs import DEFAULT_MAX_JOBS, DEFAULT_MAX_JOBS_PER_OWNER, DEFAULT_MAX_RESULT_BYTES, MOST_JOBS
from .methods import TABLES
from .options import (
    argument_errors_are_protocol_errors,
    capabilities_for,
    check_options,
    check_state_dir,
    checked_timeout,
    default_workers,
    plain_seconds,
)
from .provenance.tool_options import DEFAULT_CACHE_BYTES, cached
from .registry.registry import Registry
from .results import (
    DEFAULT_MAX_ANSWER_BYTES,
    DEFAULT_MAX_EVENT_BYTES,
    DEFAULT_MAX_INLINE_BYTES,
    DEFAULT_STORE_BYTES,
    DEFAULT_STORE_BYTES_PER_OWNER,
)
from .shutdown import Shutdown, stop_request
from .wire import trace_context
from .wire.events import EventBus
from .wire.notifier import Notifier
from .wire.pending import ClientRequests
from .wire.sessions import Session, SessionStore
from .wire.state_dir import ENV_STATE_DIR, StateLink

if TYPE_CHECKING:
    from .asks.request_state import RequestStateCodec
    from .middleware import Route
    from .provenance.cache_store import ResultCache
    from .provenance.records import ProvenanceStore
    from .registry.skill_catalog import SkillCatalog
    from .results.options import ResultOptions
    from .results.store import ResultStore
    from .telemetry import Telemetry
    from .wire.replication import Replication
    from .wire.request import RequestContext

class ServerCore:
    """Everything one server knows, behind the facade.

    Args:
        name / version / instructions, and every keyword but ``executor``: the options of
            ``MCPServer`` (``nanohubmcp.facade``), documented there once; ``state_url`` and
            ``provenance`` come here resolved from the environment (a ``StateURL`` or its
            text, a bool).
        executor: the pool running sync tool, resource and prompt functions (default: a
            :class:`WorkerPool` of ``workers`` threads, started at first use; its abandoned
            calls: :attr:`stuck_calls`).
    """

    def __init__(
        self,
        name: str,
        version: str = "1.0.0",
        instructions: str | None = None,
        *,
        argument_errors: str = "auto",
        list_page_size: int | None = None,
        list_changed: bool = True,
        workers: int | None = None,
        job_workers: int | None = None,
        tool_timeout: float | None = None,
        max_stuck_calls: int = MAX_ABANDONED,
        inline_quick_calls: bool = False,
        session_idle_seconds: float = 3600.0,
        job_ttl_seconds: float = 3600.0,
        executor: Executor | None = None,
        max_inline_bytes: int | None = DEFAULT_MAX_INLINE_BYTES,
        max_result_bytes: int | None = DEFAULT_MAX_ANSWER_BYTES,
        max_event_bytes: int | None = DEFAULT_MAX_EVENT_BYTES,
        max_kept_bytes: int = DEFAULT_STORE_BYTES,
        max_kept_bytes_per_owner: int = DEFAULT_STORE_BYTES_PER_OWNER,
        figure_dpi: float | None = None,
        state_dir: str | os.PathLike[str] | None = None,
        job_store: str = "sqlite",
        max_jobs: int = DEFAULT_MAX_JOBS,
        max_jobs_per_owner: int = DEFAULT_MAX_JOBS_PER_OWNER,
        max_job_result_bytes: int = DEFAULT_MAX_RESULT_BYTES,
        job_executor: str | JobExecutor = "threads",
        dask_address: str | None = None,
        state_url: str | StateURL | None = None,
        executor_options: dict[str, Any] | None = None,
        state_secret: str | bytes | None = None,
        tracing: bool | str | None = None,
        provenance: bool = True,
        cache_max_bytes: int = DEFAULT_CACHE_BYTES,
    ) -> None:
        limits = check_options(
            name, argument_errors=argument_errors, figure_dpi=figure_dpi,
            byte_limits={"max_inline_bytes": max_inline_bytes, "max_result_bytes": max_result_bytes,
                         "max_event_bytes": max_event_bytes, "max_kept_bytes": max_kept_bytes,
                         "max_kept_bytes_per_owner": max_kept_bytes_per_owner,
                         "max_job_result_bytes": max_job_result_bytes, "cache_max_bytes": cache_max_bytes},
            job_store=job_store,
            counts={"list_page_size": list_page_size, "workers": workers, "job_workers": job_workers,
                    "max_stuck_calls": max_stuck_calls, "max_jobs": max_jobs, "max_jobs_per_owner": max_jobs_per_owner},
            durations={"job_ttl_seconds": job_ttl_seconds}, state_dir=state_dir,
            switches={"inline_quick_calls": inline_quick_calls})
        # as ints (1e5, numpy's int64): each refused None where it is no value
        list_page_size, workers, job_workers = limits["list_page_size"], limits["workers"], limits["job_workers"]
        (max_kept_bytes, max_kept_bytes_per_owner, max_job_result_bytes, cache_max_bytes, max_stuck_calls, max_jobs,
         max_jobs_per_owner) = (cast(int, limits[option]) for option in (
            "max_kept_bytes", "max_kept_bytes_per_owner", "max_job_result_bytes", "cache_max_bytes", "max_stuck_calls",
            "max_jobs", "max_jobs_per_owner"))
        max_jobs, max_jobs_per_owner = min(max_jobs, MOST_JOBS), min(max_jobs_per_owner, MOST_JOBS)  # (1e30: no bound)
        self.name = name
        self.version = version
        self.instructions = instructions
        self.list_page_size = list_page_size
        self.list_changed = list_changed
        self.workers = workers or default_workers()
        self.max_stuck_calls = max_stuck_calls
        self.inline_quick_calls = inline_quick_calls
        """Whether a sync function may run on the event loop for arguments it answered quickly (the pool's
        inline lane, :mod:`.calls.workers`); off by default."""
        self.job_workers = job_workers or self.workers
        self.state_url = state_url if isinstance(state_url, StateURL) else parse_state_url(state_url)
        if self.state_url.path is not None and state_dir is None:
            state_dir = self.state_url.path
        if state_dir is None:  # the environment's names it: a file there is refused as state_dir= is
            check_state_dir(os.environ.get(ENV_STATE_DIR, "").strip(), ENV_STATE_DIR, variable=True)
        self.bus = EventBus()
        self.registry = Registry(self.bus)
        self.sessions = SessionStore(session_idle_seconds)
        self.sessions.add_close_callback(self._session_closed)
        self.state_link = StateLink(name, self.state_url, state_dir, self.sessions, state_secret)
        """Where the state lives: the state directory, and with a shared store (Redis) this process's link to it."""
        runners = JobRunners(job_executor, workers=self.job_workers, dask_address=dask_address,
                             executor_options=executor_options, state_dir=self.state_link.directory,
                             folder_bytes_per_owner=max_kept_bytes_per_owner,
                             state=(self.state_url, name, state_secret), returned_bytes=max_kept_bytes)
        self.first_use: FirstUse = FirstUse(
            name, self.registry.tools, state_url=self.state_url, link=self.state_link, job_store=job_store,
            job_ttl=plain_seconds(job_ttl_seconds), job_bounds=(max_jobs, max_jobs_per_owner, max_job_result_bytes),
            inline=(limits["max_inline_bytes"], figure_dpi, limits["max_result_bytes"], limits["max_event_bytes"]),
            cache_max_bytes=cache_max_bytes, kept=(max_kept_bytes, max_kept_bytes_per_owner), provenance=provenance,
            state_secret=state_secret)
        """The services a first answer does not use, made at their first use (the properties below pass them on)."""
        self.client_requests = ClientRequests(lambda: self.replication)
        self.call_seams = self.first_use.call_seams(self.bus, self.client_requests)
        """What a call's ``Context`` keeps of this server (not the core: :mod:`.calls.call_seams`)."""
        self.call_parts = CallParts(
            self.bus, self.call_seams, self.first_use, executor=executor if executor is not None else
            self._worker_pool(), tool_timeout=checked_timeout(tool_timeout), argument_errors=argument_errors,
            protocol_errors=argument_errors_are_protocol_errors)
        """What running a tool reads (:mod:`.calls.call_parts`): the one place of the pool, the time limit, the loop."""
        self.job_service = JobService(self.registry, runners, self.call_parts, self.first_use)
        """The one door to the job store (``jobs``) and the job executors (``runners``), and the store's hooks."""
        self.first_use.follow_jobs(self.job_service)  # (the job store, made later, is given the service's hooks)
        self.notifier: Notifier | None = None
        self.completers: dict[tuple[str, str, str], Any] = {}
        self.in_flight: set[RequestContext] = set()  # being served (loop thread only)
        self.shutdown = Shutdown()
        """Whether the server is stopping; the requests it serves, answered when a stop's grace runs out."""
        self.replication: Replication | None = None
        """While linked to a shared state store: keeps sessions in step across processes."""
        self.dispatcher = Dispatcher(self, TABLES)
        """The way in for every message: the pipeline of layers, then the method handlers."""
        self.tracing = trace_context.resolve(tracing)
        """The tracing setting (True, False, "auto"), decided when serving starts (:meth:`attach`)."""
        self.telemetry: Telemetry | None = None
        """The tracing layer's tracer and meter once the server traces, else None."""
        pipeline = self.dispatcher.pipeline
        self.first_use.add_layers(pipeline, caches=self._caches)  # (made when a chain they act on is composed)
        # Which tools cache decides whether a tools/call passes the cache layer: compose again on a change.
        self.bus.subscribe(lambda event, data: pipeline.refresh(), ("tools_changed",))

    # -- what running a tool reads, read off its one place (calls.call_parts; only the core writes it) -------
    @property
    def executor(self) -> Executor:
        """The pool running sync functions (a :class:`WorkerPool` unless one was given; made again after a stop)."""
        return self.call_parts.executor

    @property
    def tool_timeout(self) -> float | None:
        """Seconds a call may run, None for no limit (:meth:`set_tool_timeout` while serving)."""
        return self.call_parts.tool_timeout

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The loop the server serves on (None before it serves: :meth:`attach`)."""
        return self.call_parts.loop

    # -- services made at their first use (first_use.FirstUse) ---------------------------------
    def use_state_dir(self, directory: str) -> bool:
        """:meth:`FirstUse.use_state_dir <.first_use.FirstUse.use_state_dir>` (the testing clients' directory)."""
        return self.first_use.use_state_dir(directory)

    @property
    def result_options(self) -> ResultOptions:
        """How results are shaped (``max_inline_bytes``, ``figure_dpi``)."""
        return self.first_use.result_options

    @property
    def result_store(self) -> ResultStore:
        """Large results kept as resources, beside job results."""
        return self.first_use.result_store

    @property
    def provenance(self) -> ProvenanceStore:
        """The provenance records: as long as finished jobs, beside them."""
        return self.first_use.provenance

    @property
    def result_cache(self) -> ResultCache:
        """The results of tools registered with ``cache=``."""
        return self.first_use.result_cache

    @property
    def request_codec(self) -> RequestStateCodec:
        """The key signing the 2026-07-28 ``requestState`` (random per process unless given)."""
        return self.first_use.request_codec

    @property
    def skills(self) -> SkillCatalog:
        """The published skills (the 2026-07-28 skills extension)."""
        return self.first_use.skills

    def sweep(self) -> None:
        """Forget expired sessions and jobs (the runner's periodic sweep); a job store not opened yet holds none."""
        self.sessions.sweep()
        self.job_service.sweep()

    def _caches(self, route: Route) -> bool:
        """Whether the cache layer acts on ``route``: a ``tools/call`` while some tool caches."""
        return route.method == "tools/call" and any(cached(tool) for tool in self.registry.tools.values())

    def _session_closed(self, session: Session) -> None:
        """A session held here closed (a DELETE, idle expiry, eviction, the stop): its jobs and provenance
        records are read by their id from now on (``jobs.visibility``, ``provenance.records``). With a shared
        store a session lives on every process, and one closing its copy here ends nothing: the job and record
        stores read the session's record there instead."""
        if self.state_url.shared:
            return
        self.job_service.session_ended(session.id)
        records = self.first_use.provenance_made
        if records is not None:
            records.session_ended(session.id)

    def attach(self, loop: asyncio.AbstractEventLoop, *, testing: bool = False) -> None:
        """Serve on ``loop``: change notifications are delivered there from now on.

        Called by the runner, and by the first request when an application from
        ``make_app()`` runs on an HTTP server of the user's own, or a testing client's (``testing``:
        the in-memory transport). Unless ``testing``, real clients may come from now on: a testing
        client's temporary state directory is left for the server's own (:meth:`FirstUse.serving_began
        <.first_use.FirstUse.serving_began>`).
        """
        if self.loop is loop and self.notifier is not None:
            return
        if self.notifier is not None:
            self.notifier.close()
        self.call_parts.loop = loop
        self.shutdown.reset()
        if self.telemetry is None and trace_context.wanted(self.tracing):
            from .telemetry import install  # imports opentelemetry: only for a server that traces

            self.telemetry = install(self.dispatcher.pipeline.wrap, self.sessions, self.version,
                                     prompts=self.registry.prompts.get)
        began = not testing and self.first_use.serving_began()  # (first: the store is told the directory served)
        self._share(loop)
        if began:
            self.dispatcher.pipeline.remake()  # the provenance and cache layers held the stores dropped
        self.first_use.resume_jobs()
        if (records := self.first_use.provenance_made) is not None:
            records.serving()  # (a stop had them written at once: ProvenanceStore.stopping)
        self.notifier = Notifier(self, loop)
        # tqdm bars and input() in tools: hooked when a call's handler is first loaded (methods.calls_begin)

    def prepare_state(self) -> None:
        """Read what serving needs from the shared state store before the port is bound (the key
        signing ``requestState``: :meth:`StoreLink.prepare <.wire.store_link.StoreLink.prepare>`); nothing
        for memory and SQLite. The runner calls it; :meth:`attach` reads the key itself when it was not
        (an application served by ``make_app()``).

        Raises:
            ConfigurationError: the store cannot be reached, or refuses the URL (the message says why).
        """
        if self.replication is None:
            self.state_link.prepare()

    def _share(self, loop: asyncio.AbstractEventLoop) -> None:
        """Connect to the shared state store on ``loop`` (the serving loop of this process); ``requestState`` is
        signed with the key it gives (again if it changes), the used nonces in the store, for every process."""
        if self.replication is None:
            self.replication = self.state_link.connect(loop, self.first_use.sign_with)

    def detach(self, *, keep_store: bool = False) -> asyncio.Task[None] | None:
        """Stop delivering change notifications and keeping sessions in step with a shared store (the server
        stopped); disconnect from it now (the disconnecting task, for :func:`.wire.store_close.wait_closed`), or
        with ``keep_store`` at :meth:`close_store` (after a stop's drain)."""
        notifier, self.notifier = self.notifier, None
        if notifier is not None:
            notifier.close()
        replication, self.replication = self.replication, None
        return None if replication is None else self.state_link.disconnect(replication, self.loop, keep=keep_store)

    def close_store(self, flush: float) -> asyncio.Task[None] | None:
        """:meth:`StateLink.close_store <.wire.state_dir.StateLink.close_store>` on the serving loop."""
        return self.state_link.close_store(self.loop, flush)

    # -- executors (importing or constructing starts no threads) ------------------------------
    def _worker_pool(self) -> WorkerPool:
        return WorkerPool(self.workers, name="nanohubmcp-worker", max_stuck=self.max_stuck_calls,
                          inline=self.inline_quick_calls)

    def set_tool_timeout(self, seconds: object) -> None:
        """Bound the next call of every tool by ``seconds``, by :func:`.options.checked_timeout`'s rule (a notebook's
        ``%config NanohubMCP.tool_timeout`` while serving)."""
        self.call_parts.tool_timeout = checked_timeout(seconds)

    @property
    def stuck_calls(self) -> int:
        """Calls abandoned after ``tool_timeout`` whose functions have not returned yet, each on a thread of its own
        (not a worker); many mean a tool blocks for good (``%mcp status`` and the lab panel show the number)."""
        return self.executor.stuck if isinstance(self.executor, WorkerPool) else 0

    def invalid_arguments_as_protocol_error(self, version: str, override: str | None = None) -> bool:
        """Whether invalid tool arguments are a JSON-RPC -32602 for ``version`` (:mod:`.calls.call_parts`)."""
        return self.call_parts.invalid_arguments_as_protocol_error(version, override)

    def capabilities(self, version: str) -> dict[str, Any]:
        """Server capabilities for ``version`` (MCP § Lifecycle § Capability negotiation): every feature even
        while empty (a notebook adds tools after clients connected; ``listChanged`` tells them to look again)."""
        return capabilities_for(version, list_changed=self.list_changed)

    def server_info(self) -> dict[str, Any]:
        """``serverInfo`` / ``Implementation`` of this server."""
        return {"name": self.name, "version": self.version}

    def close_streams(self) -> None:
        """End the sessions :meth:`close` left open (``streams_later``): their streams close, and the records
        of the stop's calls are written now, before the process may end. The caller says when the stop is over
        (``shutdown.reset()``, once its connections are closed)."""
        self.sessions.close_all()
        records = self.first_use.provenance_made
        if records is not None:
            records.stopping()

    def close(self, *, streams_later: bool = False) -> None:
        """Close sessions, cancel jobs and stop the worker pools (no new work is accepted).

        Every call still running is marked cancelled first, so a tool that checks
        ``ctx.is_cancelled()`` can stop instead of holding the process open until it is done,
        and a request arriving from now on is refused (:class:`~nanohubmcp.errors.ServerStopping`).

        Args:
            streams_later: keep the sessions' streams open (their work is cancelled now): the
                answers of calls still running go on them (a legacy SSE stream, a POST's SSE
                response) until :meth:`close_streams`, once the stop's grace is over.
        """
        self.shutdown.begin()
        for request in list(self.in_flight):
            stop_request(request, "the server is shutting down")
        self.sessions.cancel_all() if streams_later else self.sessions.close_all()
        self.job_service.end_run()
        records = self.first_use.provenance_made
        if records is not None:  # the records of answered calls are on disk when stop() returns (at once)
            records.stopping()
        self.executor.shutdown(wait=False, cancel_futures=True)
        self.call_parts.executor = self._worker_pool()  # a fresh pool (no threads yet) if the server serves again
        self.job_service.runners.close()
        if not streams_later:  # stopped: a client made later (an in-memory one) serves it again
            self.shutdown.reset()
