"""``job_executor="dask"``: jobs on a ``dask.distributed`` cluster.

The scheduler is ``dask_address=``, else ``DASK_SCHEDULER_ADDRESS``, else a ``LocalCluster``
(worker processes) started on first use and closed when the server stops. The tool function
runs on a worker, pickled with cloudpickle as Dask does. Every job is a task with the key
``nanohubmcp-job-<job id>``. On a scheduler the server did not start it is also published under
that name while it runs (and unpublished within a second of its end), so it does not depend on the
server's client: when the server process dies, the job goes on, and a server restarted with the
same state directory and scheduler takes it back and stores its result. (With the local cluster
the jobs die with the server; they are reported as stopped.)

The server waits for a job on the client's own event loop, where the client's methods are
awaitable; the task answers the value with the address of the worker that ran it and the host,
pid and thread there (:class:`WorkerResult`, for the job's provenance record). The
publication runs beside the job, and the client lets go of ended jobs a moment later, together
(:class:`~.dask_farewells.Farewells`), never on the way to a result.

The task a job's first event loop runs only waits: when that loop ends while the server serves on (a
testing client's, :meth:`DaskJobExecutor.carry_on`), a task on the server's loop waits in its place, and
the job goes on.

On the worker, ``ctx.report_progress``, the log methods and the function's tqdm bars (:mod:`.job_progress`)
publish on the Dask event topic of the job (``Worker.log_event``) the server subscribes to
(``Client.subscribe_topic``, for every job: one without a ``ctx`` may draw a bar), and
``ctx.is_cancelled()`` reads a ``distributed.Event`` the server sets when the client cancels;
the server also cancels the Dask future.

``dask``/``distributed`` are imported only when this executor is chosen and used.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import threading
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from ...errors import ConfigurationError, ToolError
from .base import JobExecutor, Place, ran_away
from .dask_farewells import Farewells
from .job_progress import relaying
from .remote import JobTrace, deliver, hidden_failure, job_trace, place, remote_context, run_remote

if TYPE_CHECKING:
    from ..calls.context import Context
    from ..jobs.service import Job

KEY_PREFIX = "nanohubmcp-job-"
ENV_ADDRESS = "DASK_SCHEDULER_ADDRESS"

T = TypeVar("T")
F = TypeVar("F", "Following", "Starting")


def key_for(job_id: str) -> str:
    """The Dask key (and published dataset name) of a job."""
    return KEY_PREFIX + job_id


class DaskChannel:
    """A job's channel on the worker: an event topic out, a ``distributed.Event`` in."""

    def __init__(self, key: str) -> None:
        self.key = key

    def send(self, job_id: str, kind: str, payload: list[Any]) -> None:
        from distributed import get_worker

        get_worker().log_event(self.key, {"kind": kind, "payload": payload})

    def cancelled(self) -> bool:
        from distributed import Event, get_worker

        task = get_worker().state.tasks.get(self.key)
        if task is None or task.state in ("cancelled", "released", "forgotten"):
            return True  # the server cancelled the future: the worker knows without asking
        try:
            return bool(Event(self.key + "-cancel").is_set())
        except Exception:  # the scheduler let go of the task (cancelled) before we asked
            task = get_worker().state.tasks.get(self.key)
            return task is None or task.state != "executing"


@dataclass(eq=False)
class Following:
    """What waiting for one job's task needs (the job's current follower: one at a time)."""

    client: Any
    key: str
    future: Any
    events: Callable[[Any], None] | None
    published: concurrent.futures.Future[None] | None


@dataclass(eq=False)
class Starting:
    """A job whose task is not submitted yet (the client still connects): what submitting it needs."""

    fn: Callable[..., Any]
    kwargs: dict[str, Any]
    context: Context | None
    context_param: str | None
    is_coroutine: bool


class DaskJobExecutor(JobExecutor):
    """Jobs on a Dask cluster (see the module docstring)."""

    name = "dask"

    def __init__(self, address: str | None = None) -> None:
        self.address = address
        self._client: Any = None
        self._cluster: Any = None
        self._lock = threading.Lock()
        self._ended = Farewells()
        self._following: dict[str, Following | Starting] = {}  # job id -> its current follower, while followed

    @property
    def scheduler_address(self) -> str | None:
        """The configured scheduler (None: a local cluster of this server)."""
        return self.address or os.environ.get(ENV_ADDRESS) or None

    @property
    def survives_restart(self) -> bool:  # type: ignore[override]
        """Jobs outlive the server only on a cluster the server did not start."""
        return self.scheduler_address is not None

    def _connect(self) -> Any:
        with self._lock:
            if self._client is None:
                try:
                    from distributed import Client, LocalCluster
                except ImportError:
                    raise ConfigurationError(
                        "job_executor='dask' needs dask.distributed: pip install 'nanohub-mcp[dask]'"
                    ) from None
                address = self.scheduler_address
                if address:
                    self._client = Client(address, set_as_default=False, timeout=30)
                else:
                    self._cluster = LocalCluster(processes=True, dashboard_address=":0")  # any free port
                    self._client = Client(self._cluster, set_as_default=False)
            return self._client

    async def _client_async(self) -> Any:
        return await asyncio.get_running_loop().run_in_executor(None, self._connect)

    async def call(
        self,
        job: Job,
        fn: Callable[..., Any],
        kwargs: dict[str, Any],
        *,
        context: Context | None,
        context_param: str | None,
        is_coroutine: bool,
    ) -> Any:
        return await self._start(job, self._follower(job, Starting(fn, kwargs, context, context_param, is_coroutine)))

    async def _start(self, job: Job, starting: Starting) -> Any:
        fn, kwargs, context, context_param = starting.fn, starting.kwargs, starting.context, starting.context_param
        try:
            client = self._client if self._client is not None else await self._client_async()
            key = key_for(job.id)
            if context_param:
                kwargs = {**kwargs, context_param: remote_context(job, context, DaskChannel(key), self.name)}
            events = self._listen(client, key, job, context)  # before the task exists, so no event comes first
            future = client.submit(run_on_worker, fn, kwargs, starting.is_coroutine, job_trace(job), key, key=key,
                                   pure=False)
        except BaseException:
            if self._following.get(job.id) is starting:
                del self._following[job.id]
            raise
        # Published (for a server restarted after this one died) while the task runs, not before:
        # the scheduler answers a publication only after the client's next batch of messages.
        published = self._on_client(client, _publish(client, future, key)) if self.survives_restart else None
        return await self._follow(job, self._follower(job, Following(client, key, future, events, published)))

    def reattach(self, job: Job) -> Any:
        if not job.executor_ref:
            return None
        return self._take_back(job, key_for(job.executor_ref))

    async def _take_back(self, job: Job, key: str) -> Any:
        client = await self._client_async()
        loop = asyncio.get_running_loop()
        try:
            future = await loop.run_in_executor(None, client.get_dataset, key)
        except KeyError:
            raise ToolError("the server stopped while this job ran, and the Dask cluster no longer holds it") from None
        events = self._listen(client, key, job, None)
        return await self._follow(job, self._follower(job, Following(client, key, future, events, None)))

    def carry_on(self, job: Job) -> Any:
        """Wait for ``job`` on another event loop from now on: the task that waited gives way (its
        cancellation neither cancels the job's Dask task nor stops its events), and the job goes on."""
        following = self._following.get(job.id)
        if isinstance(following, Starting):  # not submitted yet: submitted from the other loop
            return self._start(job, self._follower(job, Starting(**vars(following))))
        if following is None:
            return None
        return self._follow(job, self._follower(job, Following(**vars(following))))

    def _follower(self, job: Job, following: F) -> F:
        self._following[job.id] = following  # (set here, not when awaited: the one before stands down at once)
        return following

    @staticmethod
    def _listen(client: Any, key: str, job: Job, context: Context | None) -> Callable[[Any], None]:
        """Subscribe to the job's event topic; returns the handler (which catches up at the end)."""
        store = job.store
        delivered = [0.0]  # timestamp of the last event handed on

        def on_event(event: Any) -> None:  # on the client's event loop
            stamp, message = event if isinstance(event, (tuple, list)) else (0.0, event)
            if stamp and stamp <= delivered[0]:
                return
            delivered[0] = stamp or delivered[0]
            deliver(context, store, job.id, message.get("kind"), message.get("payload"))

        client.subscribe_topic(key, on_event)
        return on_event

    @staticmethod
    def _on_client(client: Any, work: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Run ``work`` on the client's own event loop, where its methods are awaitable: no
        thread of ours waits for the scheduler."""
        return asyncio.run_coroutine_threadsafe(work, client.loop.asyncio_loop)

    async def _follow(self, job: Job, following: Following) -> Any:
        client, key, future, events, published = (following.client, following.key, following.future,
                                                  following.events, following.published)
        job.where = ran_away()  # a task that raised says not where it ran, but not the server's process
        try:
            value, job.where = await asyncio.wrap_future(self._on_client(client, _outcome(client, key, future, events)))
        except asyncio.CancelledError:
            # not when left behind by a stopping server, nor when another loop follows the job now (carry_on)
            if not job.abandoned and self._following.get(job.id) is following:
                await asyncio.get_running_loop().run_in_executor(None, self._cancel, client, key, future, published)
            raise
        except Exception:
            self._ended.add(client, future, key, published)
            raise
        finally:
            if self._following.get(job.id) is following:
                del self._following[job.id]
                if events is not None:
                    client.unsubscribe_topic(key)
        if not job.abandoned:
            self._ended.add(client, future, key, published)
        return value

    @staticmethod
    def _cancel(client: Any, key: str, future: Any, published: concurrent.futures.Future[None] | None) -> None:
        from distributed import Event

        Event(key + "-cancel", client=client).set()
        future.cancel()
        if published is not None:
            concurrent.futures.wait([published])
        with contextlib.suppress(KeyError):
            client.unpublish_dataset(key)

    def close(self) -> None:
        with self._lock:
            client, cluster = self._client, self._cluster
            self._client = self._cluster = None
        if client is not None:
            self._ended.let_go_now(client)
            client.close()
        if cluster is not None:
            cluster.close()


# -- on the client's event loop (each Client method returns an awaitable there) -----------------
async def _publish(client: Any, future: Any, key: str) -> None:
    await client.publish_dataset(future, name=key)


async def _outcome(
    client: Any, key: str, future: Any, events: Callable[[Any], None] | None
) -> tuple[Any, dict[str, Any]]:
    """The job's value, once the task ended (what it raised, raised), and where it ran; events
    that trail the result are handed on first."""
    try:
        ran = await client.gather(future)
    finally:
        if events is not None:
            for event in await client.get_events(key):
                events(event)
    return answered(ran)


def answered(ran: Any) -> tuple[Any, dict[str, Any]]:
    """The function's value and the job's ``where``, from what its task answered (a
    :class:`WorkerResult`; the bare value from a task an earlier version of the server submitted)."""
    if isinstance(ran, WorkerResult):
        return ran.value, ran_away(ran.place, dask_worker=ran.worker)
    return ran, ran_away()


@dataclass(frozen=True)
class WorkerResult:
    """What a job's task answers: the function's value, the address of the worker that ran it and
    where on it (``(host, pid, thread)``), for the job's provenance record — which the server would
    otherwise ask the scheduler, and could not ask for the pid and thread.

    A result pickled by an earlier version has no ``place``: it reads as None.
    """

    value: Any
    worker: str
    place: Place | None = None


def run_on_worker(
    fn: Callable[..., Any], kwargs: dict[str, Any], is_coroutine: bool, trace: JobTrace | None,
    key: str | None = None,
) -> WorkerResult:
    """The job's task, on a Dask worker: :func:`~.remote.run_remote`, the worker's address and
    where the function ran there. What the function raised is raised as it is, or, for a job with ``Secret``
    values, told with them hidden (:func:`~.remote.hidden_failure`: Dask logs and keeps what its task raised).
    ``key``: the task's, whose event topic its tqdm bars report on (None: they do not)."""
    from distributed import get_worker

    here = place()  # on the task's thread, which runs the function
    try:
        if key is None:
            value = run_remote(fn, kwargs, is_coroutine, trace)
        else:
            with relaying(DaskChannel(key), key):
                value = run_remote(fn, kwargs, is_coroutine, trace)
    except Exception as exc:
        failed = hidden_failure(exc, trace)
        if failed is exc:
            raise
    else:
        return WorkerResult(value, get_worker().address, here)
    raise failed  # (out of the except: the exception quoting the secret is not its context)
