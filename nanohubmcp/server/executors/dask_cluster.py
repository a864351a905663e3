"""``job_executor="dask"``: jobs on a ``dask.distributed`` cluster.

The scheduler is ``dask_address=``, else ``DASK_SCHEDULER_ADDRESS``, else a ``LocalCluster``
(worker processes) started on first use and closed when the server stops. The tool function
runs on a worker, pickled with cloudpickle as Dask does. Every job is a task with the key
``nanohubmcp-job-<job id>``, published on the scheduler under the same name, so it does not
depend on the server's client: when the server process dies, the job goes on, and a server
restarted with the same state directory and scheduler takes it back and stores its result.
(With the local cluster the jobs die with the server; they are reported as stopped.)

On the worker, ``ctx.report_progress`` and the log methods publish on the Dask event topic of
the job (``Worker.log_event``) the server subscribes to (``Client.subscribe_topic``), and
``ctx.is_cancelled()`` reads a ``distributed.Event`` the server sets when the client cancels;
the server also cancels the Dask future.

``dask``/``distributed`` are imported only when this executor is chosen and used.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...errors import ConfigurationError, ToolError
from .base import JobExecutor
from .remote import deliver, job_trace, remote_context, run_remote

if TYPE_CHECKING:
    from ..calls.context import Context
    from ..jobs.service import Job

KEY_PREFIX = "nanohubmcp-job-"
ENV_ADDRESS = "DASK_SCHEDULER_ADDRESS"


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


class DaskJobExecutor(JobExecutor):
    """Jobs on a Dask cluster (see the module docstring)."""

    name = "dask"

    def __init__(self, address: str | None = None) -> None:
        self.address = address
        self._client: Any = None
        self._cluster: Any = None
        self._lock = threading.Lock()

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
        client = await self._client_async()
        key = key_for(job.id)
        if context_param:
            kwargs = {**kwargs, context_param: remote_context(job, context, DaskChannel(key), self.name)}
        future = client.submit(run_remote, fn, kwargs, is_coroutine, job_trace(job), key=key, pure=False)
        await asyncio.get_running_loop().run_in_executor(None, lambda: client.publish_dataset(future, name=key))
        return await self._follow(client, key, future, job, context)

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
        return await self._follow(client, key, future, job, None)

    async def _follow(self, client: Any, key: str, future: Any, job: Job, context: Context | None) -> Any:
        loop = asyncio.get_running_loop()
        store = job.store
        lock = threading.Lock()
        delivered = [0.0]  # timestamp of the last event handed on

        def on_event(event: Any) -> None:  # on the client's thread (and once more at the end)
            stamp, message = event if isinstance(event, (tuple, list)) else (0.0, event)
            with lock:
                if stamp and stamp <= delivered[0]:
                    return
                delivered[0] = stamp or delivered[0]
                deliver(context, store, job.id, message.get("kind"), message.get("payload"))

        def catch_up() -> None:  # events can trail the result: hand on those not seen yet
            for event in client.get_events(key):
                on_event(event)

        client.subscribe_topic(key, on_event)
        ended: asyncio.Future[None] = loop.create_future()

        def settle() -> None:
            if not ended.done():
                ended.set_result(None)

        def done(_future: Any) -> None:  # on a thread of the client
            loop.call_soon_threadsafe(settle)

        future.add_done_callback(done)
        try:
            await ended
            value = await loop.run_in_executor(None, future.result)
            await loop.run_in_executor(None, catch_up)
        except asyncio.CancelledError:
            if not job.abandoned:  # cancelled by the client, not left behind by a stopping server
                await loop.run_in_executor(None, self._cancel, client, key, future)
            raise
        finally:
            client.unsubscribe_topic(key)
        if not job.abandoned:
            job.where = await loop.run_in_executor(None, self._where, client, future)
            await loop.run_in_executor(None, self._forget, client, key)
        return value

    @staticmethod
    def _where(client: Any, future: Any) -> dict[str, Any] | None:
        """The worker holding the job's result: the one that ran it (for its provenance record)."""
        try:
            holders = client.who_has(future).get(future.key) or []
        except Exception:  # the worker left meanwhile: nothing more to say than the executor's name
            return None
        return {"dask_worker": holders[0]} if holders else None

    @staticmethod
    def _cancel(client: Any, key: str, future: Any) -> None:
        from distributed import Event

        Event(key + "-cancel", client=client).set()
        future.cancel()
        DaskJobExecutor._forget(client, key)

    @staticmethod
    def _forget(client: Any, key: str) -> None:
        with contextlib.suppress(KeyError):
            client.unpublish_dataset(key)

    def close(self) -> None:
        with self._lock:
            client, cluster = self._client, self._cluster
            self._client = self._cluster = None
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
