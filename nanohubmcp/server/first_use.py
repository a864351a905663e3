"""The core's services a first answer does not use, each made at its first use: :class:`FirstUse`.

The job store (with the job service's hand-over and re-attach hooks, and the provenance recorder
as its finish hook), the result store and the result options, the done jobs' kept data, the provenance
records and their layer's recorder, the result cache and its layer, and the stateless era's state (the
``requestState`` key, task inputs, skills). Each is a typed property backed by a :class:`Once`:
made under a lock at the first ask, then kept; its module is imported then too, so a served
script's first answer imports none of them. They are made in the state directory
:class:`~.wire.state_dir.StateLink` names; when serving begins and a testing client's temporary one is left, those
made there are dropped (:meth:`FirstUse.serving_began`). :class:`~.core.ServerCore` holds one ``FirstUse``
and passes its properties on; nothing else builds one. Nothing here imports Tornado or IPython.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, TypeVar

from .calls.call_seams import CallSeams
from .jobs import DB_FILE

if TYPE_CHECKING:
    from ..state import StateURL
    from .asks.request_state import RequestStateCodec
    from .asks.task_inputs import TaskInputs
    from .executors.polled_data import PolledData
    from .jobs.service import JobStore
    from .jobs.settle import JobHooks
    from .middleware import Acts
    from .pipeline import Pipeline
    from .provenance.cache_layer import CacheLayer
    from .provenance.cache_store import ResultCache
    from .provenance.layer import Recorder, ToolLookup
    from .provenance.records import ProvenanceStore
    from .registry.skill_catalog import SkillCatalog
    from .results.options import ResultOptions
    from .results.store import ResultStore
    from .wire.events import EventBus
    from .wire.pending import ClientRequests
    from .wire.state_dir import StateLink

T = TypeVar("T")

log = logging.getLogger("nanohubmcp")


class Once(Generic[T]):
    """One service of the core, made by ``make`` at its first use and kept (under a lock: the
    loop and a tool's or a notebook's thread may ask for it at the same moment)."""

    __slots__ = ("_lock", "_make", "made")

    def __init__(self, make: Callable[[], T]) -> None:
        self._make = make
        self._lock = threading.Lock()
        self.made: T | None = None
        """The service once made, else None."""

    def get(self) -> T:
        made = self.made
        if made is None:
            with self._lock:
                made = self.made
                if made is None:
                    made = self.made = self._make()
        return made

    def unless_made(self, change: Callable[[], object]) -> bool:
        """Run ``change`` when the service is not made yet (under the lock that makes it); whether it ran."""
        with self._lock:
            if self.made is not None:
                return False
            change()
            return True

    def replace(self, service: T) -> None:
        """Use ``service`` from now on (the shared state store's ``requestState`` key)."""
        self.made = service

    def forget(self) -> T | None:
        """Drop the service made (the next ask makes another); returns it, None when none was made."""
        with self._lock:
            made, self.made = self.made, None
        return made


class FirstUse:
    """The services of one server made at their first use.

    Args:
        name: the server's name (names the default state directory).
        tools: the registry's tools (the recorder and the cache layer look tools up by name).
        state_url: where what several processes share lives (a Redis URL keeps the jobs there).
        link: where the state lives (:class:`~.wire.state_dir.StateLink`: the state directory services are made in).
        job_store: ``"sqlite"`` or ``"memory"``.
        job_ttl: seconds finished jobs, kept results and records stay readable.
        job_bounds: ``(max_jobs, max_jobs_per_owner, max_job_result_bytes)``.
        inline: ``(max_inline_bytes, figure_dpi, max_result_bytes, max_event_bytes)`` of the result options.
        kept: ``(max_kept_bytes, max_kept_bytes_per_owner)``: the large-result store's bounds.
        cache_max_bytes: bytes of results the result cache keeps.
        provenance: whether calls and jobs are recorded.
        state_secret: the ``requestState`` key, or None for a random one per process.

    The job store's hooks into the server (the job service's, :class:`~.jobs.settle.JobHooks`) are given by
    :meth:`follow_jobs` once the service is built, over this object: the core does so in its constructor.
    """

    def __init__(
        self,
        name: str,
        tools: ToolLookup,
        *,
        state_url: StateURL,
        link: StateLink,
        job_store: str,
        job_ttl: float,
        job_bounds: tuple[int, int, int],
        inline: tuple[int | None, float | None, int | None, int | None],
        cache_max_bytes: int,
        provenance: bool,
        kept: tuple[int, int],
        state_secret: str | bytes | None,
    ) -> None:
        self._name = name
        self._tools = tools
        self._state_url = state_url
        self._link = link
        self._job_store = job_store
        self._job_ttl = job_ttl
        self._job_bounds = job_bounds
        self._inline = inline
        self._kept = kept
        self._cache_max_bytes = cache_max_bytes
        self._provenance_on = provenance
        self._hooks: JobHooks | None = None
        self._jobs = Once(self._make_jobs)
        self._result_options = Once(self._make_result_options)
        self._result_store = Once(self._make_result_store)
        self._polled_data = Once(self._make_polled_data)
        self._provenance = Once(self._make_provenance)
        self._recorder = Once(self._make_recorder)
        self._result_cache = Once(self._make_result_cache)
        self._cache_layer = Once(self._make_cache_layer)
        self._task_inputs = Once(self._make_task_inputs)
        self._skills = Once(self._make_skills)
        self.state_secret = state_secret
        """The ``requestState`` key given, or None."""
        self._request_codec = Once(lambda: self.codec(state_secret))
        if state_secret is not None:  # a given key is checked now, not at the first 2026-07-28 round trip
            self._request_codec.get()

    def follow_jobs(self, hooks: JobHooks) -> None:
        """Give the job store, made at its first use, ``hooks`` (the job service, built over this object): a job
        handed over at a stop, one of a dead process re-attached, the executors' folders."""
        self._hooks = hooks

    def call_seams(self, bus: EventBus, client_requests: ClientRequests) -> CallSeams:
        """What a call's ``Context`` keeps of the server (:mod:`.calls.call_seams`): ``bus``, ``client_requests``
        and, made at their first use here, the job store, the tasks' input requests and the result options."""
        return CallSeams(self._name, bus, client_requests, jobs=self._jobs, task_inputs=self._task_inputs,
                         result_options=self._result_options)

    @property
    def jobs(self) -> JobStore:
        """The job store: made at the first job, task or poll, or by :meth:`resume_jobs`."""
        return self._jobs.get()

    @property
    def jobs_made(self) -> JobStore | None:
        """The job store if made yet (a store not made holds nothing to sweep or cancel)."""
        return self._jobs.made

    def _make_jobs(self) -> JobStore:
        from .jobs.service import JobStore

        max_jobs, per_owner, result_bytes = self._job_bounds
        hooks = self._hooks
        jobs = JobStore(
            self._job_ttl, name=self._name, state_dir=self._link.option(), kind=self._job_store,
            max_jobs=max_jobs, max_jobs_per_owner=per_owner, max_result_bytes=result_bytes, shared=self._state_url,
            reattach=None if hooks is None else hooks.reattach, hand_over=None if hooks is None else hooks.hand_over,
            leftovers=None if hooks is None else hooks.folders, secret=self.state_secret)
        if self._provenance_on:
            jobs.on_finish(self.recorder.job_finished)
        return jobs

    def add_layers(self, pipeline: Pipeline, *, caches: Acts) -> None:
        """Add the provenance layer and, inside it, the result cache's to ``pipeline``, each made when the first
        chain it acts on is composed (the first ``tools/call`` or ``resources/read``), with the stores behind it.
        The provenance layer acts on ``tools/call`` (unless ``provenance=False``) and on ``resources/read`` (reads
        of records); the cache's on the routes ``caches`` names."""
        recorded = ("tools/call", "resources/read") if self._provenance_on else ("resources/read",)
        pipeline.add_made(lambda: self.recorder.layer(), acts=lambda route: route.method in recorded)
        pipeline.add_made(lambda: self.cache_layer.layer(), acts=caches)

    def resume_jobs(self) -> None:
        """Open the job store now when an earlier process left one on disk: its unfinished jobs
        are settled (taken back by their executor, else failed) when serving starts, not at the
        first job call. Without a file there is nothing to settle and nothing is opened."""
        if self._jobs.made is not None or self._job_store != "sqlite" or self._state_url.shared:
            return
        directory = self.state_directory()
        if os.path.exists(os.path.join(directory, DB_FILE)):
            self.jobs.open()

    def use_state_dir(self, directory: str) -> bool:
        """Keep the state in ``directory`` instead of the default one of the server's name
        (``~/.local/share/nanohubmcp/<name>``): the testing clients' temporary directory. Only while no
        directory is named (``state_dir=``, ``--state-dir``, a ``sqlite:///DIR`` state URL,
        ``NANOHUBMCP_STATE_DIR``: a name wins whenever it is read), nothing is kept yet (the job store,
        beside which every record and kept result lives, is not made), the server has not begun serving (a
        ``server.start()`` in a notebook: its real clients' jobs and records stay where they are) and no
        other temporary directory was given first
        (:meth:`StateLink.use_scratch <.wire.state_dir.StateLink.use_scratch>`); True when it is used."""
        if self._link.named:
            return False
        used = self._jobs.unless_made(lambda: self._link.use_scratch(directory))
        return used and self._link.scratch_state_dir == directory

    def serving_began(self) -> bool:
        """The server serves real clients (HTTP, stdio): the first time, a testing client's temporary state
        directory given before is left (:meth:`StateLink.serving_began <.wire.state_dir.StateLink.serving_began>`,
        :meth:`_leave_scratch`; one kept then stays: its real clients' jobs are there from then on).

        Returns:
            True when the temporary directory was left: the pipeline's layers made from the services
            dropped must be made again.
        """
        scratch = self._link.serving_began()
        return scratch is not None and self._leave_scratch(scratch)

    def _leave_scratch(self, scratch: str) -> bool:
        """Serve from the state directory the server would have had without the testing clients: what they
        kept in ``scratch`` (their jobs, records, kept results, cached results) was a test's, and stays there,
        removed at exit. The services made there are closed and dropped, made again at their first use in
        the server's own directory. While a job a testing client started still runs (its end is stored
        there), ``scratch`` is kept, with a warning naming it."""
        jobs = self._jobs.made
        if jobs is not None and jobs.running_here():
            log.warning(
                "state directory %s is the testing clients' temporary one, removed when the process exits: a job "
                "a testing client started still runs there, so this server keeps its jobs and records there too; "
                "name one (MCPServer(state_dir=...), NANOHUBMCP_STATE_DIR) or start the server before testing it "
                "to keep them", scratch)
            return False
        for once in (self._recorder, self._cache_layer, self._polled_data, self._result_store):
            once.forget()
        records, cache, jobs = self._provenance.forget(), self._result_cache.forget(), self._jobs.forget()
        if records is not None:  # (its pending records are written first)
            records.close()
        if cache is not None:
            cache.close()
        if jobs is not None:
            jobs.close()
        self._link.scratch_left()
        log.info("state directory %s (the testing clients' temporary one, %s, is left to them)",
                 self.state_directory(), scratch)
        return True

    def state_directory(self) -> str:
        """The state directory (resolved now: ``NANOHUBMCP_STATE_DIR`` is read at each call)."""
        return self._link.directory()

    @property
    def result_options(self) -> ResultOptions:
        """How results are shaped (``max_inline_bytes``, ``figure_dpi``)."""
        return self._result_options.get()

    def _make_result_options(self) -> ResultOptions:
        from .results.options import ResultOptions

        return ResultOptions(*self._inline)

    @property
    def result_store(self) -> ResultStore:
        """Large results kept as resources: as long as job results, beside them (files in the
        state directory when the job store keeps its records)."""
        return self._result_store.get()

    def _make_result_store(self) -> ResultStore:
        from .results.store import ResultStore

        return ResultStore(self._job_ttl, self._kept[0], directory=self._kept_directory,
                           max_bytes_per_owner=self._kept[1])

    @property
    def polled_data(self) -> PolledData:
        """The done jobs' data over ``max_inline_bytes`` kept for their MCP answers (``get_job_result``,
        ``tasks/result``), once per job, in :attr:`result_store`."""
        return self._polled_data.get()

    def _make_polled_data(self) -> PolledData:
        from .executors.polled_data import PolledData

        return PolledData(self.result_store, self.result_options, lambda: self.jobs.backend)

    @property
    def provenance(self) -> ProvenanceStore:
        """The provenance records: as long as finished jobs, beside them."""
        return self._provenance.get()

    @property
    def provenance_made(self) -> ProvenanceStore | None:
        """The provenance records if made yet (none made: nothing pending to write)."""
        return self._provenance.made

    def _make_provenance(self) -> ProvenanceStore:
        from .provenance.owner_share import RECORDS_PER_JOB, share_of
        from .provenance.records import ProvenanceStore

        shared = self._state_url.shared  # sessions in Redis: whether one ended is asked of it
        # Other processes may write the records (a read then waits for their writers) with a shared state URL
        # (--workers above 1 needs one) or a state directory the user named, the documented way for separately
        # started servers to share one; the default directory (one per server name) is this process's.
        # As many records as jobs kept, ten times over: in all, and per owner (max_jobs_per_owner's tenfold)
        max_records = self._job_bounds[0] * RECORDS_PER_JOB
        return ProvenanceStore(self._job_ttl, self._kept_directory, max_records=max_records,
                               session_gone=self._session_gone if shared else None,
                               shared=shared or self._link.named,
                               max_records_per_owner=share_of(self._job_bounds[1], max_records))

    def _session_gone(self, session_id: str) -> bool:
        return self.jobs.session_gone(session_id)  # (the job store is made at its first use: it records to these)

    @property
    def recorder(self) -> Recorder:
        """The provenance layer's recorder (and the job store's finish hook)."""
        return self._recorder.get()

    def _make_recorder(self) -> Recorder:
        from .provenance.layer import Recorder

        return Recorder(self.provenance, self._tools, enabled=self._provenance_on)

    @property
    def result_cache(self) -> ResultCache:
        """The results of tools registered with ``cache=``."""
        return self._result_cache.get()

    def _make_result_cache(self) -> ResultCache:
        from .provenance.cache_store import ResultCache

        return ResultCache(self._kept_directory, max_bytes=self._cache_max_bytes)

    @property
    def cache_layer(self) -> CacheLayer:
        """The result cache's layer (hits and misses counted)."""
        return self._cache_layer.get()

    def _make_cache_layer(self) -> CacheLayer:
        from .provenance.cache_layer import CacheLayer

        return CacheLayer(self.result_cache, self._tools)

    @property
    def request_codec(self) -> RequestStateCodec:
        """The key signing the 2026-07-28 ``requestState`` (random per process unless given)."""
        return self._request_codec.get()

    def sign_with(self, key: str | bytes, consume: Callable[[str, float], bool]) -> None:
        """Sign and check ``requestState`` (and list cursors) with ``key`` from now on, ``consume`` marking a state's
        nonce used (the shared state store's key and used nonces; called again if the store's key changes)."""
        self._request_codec.replace(self.codec(key, shared_consume=consume))

    @staticmethod
    def codec(secret: str | bytes | None,
              shared_consume: Callable[[str, float], bool] | None = None) -> RequestStateCodec:
        """A ``requestState`` codec with ``secret`` (None: a random key)."""
        from .asks.request_state import RequestStateCodec

        return RequestStateCodec(secret, shared_consume=shared_consume)

    @property
    def task_inputs(self) -> TaskInputs:
        """The input requests of running tasks (the 2026-07-28 tasks extension)."""
        return self._task_inputs.get()

    def _make_task_inputs(self) -> TaskInputs:
        from .asks.task_inputs import TaskInputs

        return TaskInputs()

    @property
    def skills(self) -> SkillCatalog:
        """The published skills (the 2026-07-28 skills extension)."""
        return self._skills.get()

    def _make_skills(self) -> SkillCatalog:
        from .registry.skill_catalog import SkillCatalog

        return SkillCatalog()

    def _kept_directory(self) -> str | None:
        """Where results and records outlive the process: the job store's directory while it
        keeps its records there, else None (memory)."""
        return self.jobs.directory if self.jobs.persistent else None
