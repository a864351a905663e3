"""``subscriptions/listen``: the long-lived stream of change notifications a client asked for.

The request's response is an SSE stream that stays open until the client closes it. The
first message is ``notifications/subscriptions/acknowledged`` with the filter the server
honours; after it come only the notifications the filter names (tools/prompts/resources list
changes, updates of the subscribed resource URIs, status of the listed tasks), each tagged
``_meta["io.modelcontextprotocol/subscriptionId"]`` = the listen request's id. Progress and log
messages never travel here. It replaces the GET stream and ``resources/subscribe`` of the
handshake era. A resource update matches a URI in ``resourceSubscriptions``, or one under it, as
``resources/read`` compares URIs (the scheme in any case, escaped unreserved characters as themselves,
escapes' hex in any case: ``DATA://%6Cab`` is ``data://lab``), and names the URI with the spelling
subscribed.

Change events come from the server's notifier (present while the server is served by
``run``/``start``); task status from the job store (``JobStore.follow``): each change of a listed
task's ``DetailedTask`` — its status, its ``statusMessage`` (which shows the progress it reports),
its end — wherever the task runs, at most one notification per task every
``far_ends.FOLLOW_GAP_SECONDS``.

Source: MCP 2026-07-28, Basic § Patterns § Subscriptions; Transports § Streamable HTTP
(receiving messages); tasks extension (SEP-2663) § Task Status Notifications.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...errors import InvalidParams, InvalidRequest, MissingClientCapability, ResultTooLarge, UnknownComponent
from ...protocol import jsonrpc
from ...protocol.content import tool_error_result
from ...protocol.uris import comparison_form
from ..handlers.answered_result import answered_result
from ..jobs import service as jobmod
from ..results.event_bound import held_to_schema, hold_task_to_event
from ..results.written import Written, written_of
from ..wire.request import RequestContext
from .discover import TASKS_EXTENSION
from .tasks import detailed_task, has_tasks_extension, task_status

if TYPE_CHECKING:
    from .hosts import ListenHost

log = logging.getLogger(__name__)

SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
_LIST_FLAGS = {
    "toolsListChanged": "notifications/tools/list_changed",
    "promptsListChanged": "notifications/prompts/list_changed",
    "resourcesListChanged": "notifications/resources/list_changed",
}
MAX_URIS = 256


def _uris(value: object, name: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(u, str) and u for u in value) or len(value) > MAX_URIS:
        raise InvalidParams(f"subscriptions/listen: notifications.{name} must be a list of at most "
                            f"{MAX_URIS} non-empty strings")
    return list(dict.fromkeys(value))


def honoured_filter(core: ListenHost, request: RequestContext, wanted: object) -> dict[str, Any]:
    """The part of the client's ``notifications`` filter this server will deliver.

    Raises:
        InvalidParams: the filter is not an object, or a field has the wrong type.
        MissingClientCapability: ``taskIds`` without the tasks extension in the request.
    """
    if not isinstance(wanted, dict):
        raise InvalidParams("subscriptions/listen needs params.notifications, an object such as "
                            '{"toolsListChanged": true, "resourceSubscriptions": ["file:///x"]}')
    honoured: dict[str, Any] = {}
    for flag in _LIST_FLAGS:
        value = wanted.get(flag)
        if value is not None and not isinstance(value, bool):
            raise InvalidParams(f"subscriptions/listen: notifications.{flag} must be true or false")
        if value and core.list_changed:
            honoured[flag] = True
    if "resourceSubscriptions" in wanted:
        honoured["resourceSubscriptions"] = _uris(wanted["resourceSubscriptions"], "resourceSubscriptions")
    if "taskIds" in wanted:
        ids = _uris(wanted["taskIds"], "taskIds")
        if not has_tasks_extension(request):
            raise MissingClientCapability(
                "Missing required client capability: task status notifications need the "
                f"{TASKS_EXTENSION} extension in clientCapabilities.extensions",
                {"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}})
        service = core.job_service
        visible = []
        for task_id in ids:
            try:
                service.job_of(task_id, None, request.principal)
            except UnknownComponent:
                continue
            visible.append(task_id)
        honoured["taskIds"] = visible
    return honoured


def _as_subscribed(uri: str, subscribed: list[tuple[str, str]]) -> str | None:
    """``uri`` as the client named it in ``resourceSubscriptions`` (pairs ``(compared, as sent)``, the first
    in :func:`~nanohubmcp.protocol.uris.comparison_form`): a URI subscribed to, or one under it (``…/x``
    under ``…``) with the part subscribed to spelled as subscribed and the rest as the server names it; None
    when no subscription covers it. URIs compare as ``resources/read`` compares them."""
    key = comparison_form(uri)
    for compared, sent in subscribed:
        if key == compared:
            return sent
        stem = compared.rstrip("/")
        if key.startswith(stem + "/"):
            # No escape decodes to "/" (a reserved character): the rest begins at the "/" after as many as
            # the stem holds, however the server escaped the characters before it.
            cut = -1
            for _ in range(stem.count("/") + 1):
                cut = uri.index("/", cut + 1)
            return sent.rstrip("/") + uri[cut:]
    return None


async def subscriptions_listen(core: ListenHost, request: RequestContext,
                               params: dict[str, Any]) -> dict[str, Any]:
    """``subscriptions/listen``: acknowledge, then stream the chosen notifications until the client leaves."""
    honoured = honoured_filter(core, request, params.get("notifications"))
    if request.stream is None:
        raise InvalidRequest(
            "subscriptions/listen answers with an SSE stream: "
            "send 'Accept: application/json, text/event-stream'")
    sub_meta = {SUBSCRIPTION_ID: request.request_id}

    def send(method: str, payload: dict[str, Any] | None = None, written: Written | None = None) -> None:
        params = {**(payload or {}), "_meta": sub_meta}
        request.send_related(jsonrpc.notification(method, params if written is None else written.sent(params)))

    wanted_lists = {_LIST_FLAGS[f] for f in _LIST_FLAGS if honoured.get(f)}
    subscribed = [(comparison_form(uri), uri) for uri in honoured.get("resourceSubscriptions", [])]

    def on_change(method: str, data: dict[str, Any]) -> None:
        if method in wanted_lists:
            send(method)
        elif method == "notifications/resources/updated":
            named = _as_subscribed(str(data.get("uri")), subscribed)
            if named is not None:
                send(method, {"uri": named})

    cleanups: list[Callable[[], None]] = []
    notifier = core.notifier
    if notifier is not None and (wanted_lists or subscribed):
        notifier.listeners.append(on_change)

        def stop_listening() -> None:
            if on_change in notifier.listeners:
                notifier.listeners.remove(on_change)

        cleanups.append(stop_listening)
    service = core.job_service
    for task_id in honoured.get("taskIds", []):
        job = service.job_of(task_id, None, request.principal)
        if job.status not in jobmod.TERMINAL:  # (one that ended already is read with tasks/get)
            told = _TaskStatus(core, job, send)
            follower = asyncio.ensure_future(told.follow(request))  # (on any process of the server)
            follower.add_done_callback(functools.partial(_logged, task_id))
            cleanups.append(functools.partial(_cancel, follower))
    # Everything is wired before the acknowledgement goes out (all on this loop step, so no event
    # can slip in between): a client that saw the acknowledgement misses nothing after it.
    send("notifications/subscriptions/acknowledged", {"notifications": honoured})
    closed = asyncio.Event()
    request.on_cancel(closed.set)
    try:
        await closed.wait()
    finally:
        for cleanup in cleanups:
            cleanup()
    return {"_meta": sub_meta}


class _TaskStatus:
    """One task a listen names: a ``notifications/tasks`` each time its ``DetailedTask`` changes
    (``JobStore.follow`` reads it after each change of its status, progress or end, wherever it runs). The
    last, of a completed task, carries its result as ``tasks/get`` answers it (:func:`answered_result`: data
    over ``max_inline_bytes`` linked, the job store being down or not: :mod:`..executors.polled_data`), told
    once the following ended, since keeping the data is blocking. When keeping it fails all the same (the data
    cannot be written anywhere: logged), the result is told as the task stored it, whole: the task did complete,
    and its completion is what the listen waits for.

    .. versionchanged:: 1.0
       A failed keep of the data no longer loses the completion (it ended the following untold)."""

    def __init__(self, core: ListenHost, job: jobmod.Job,
                 send: Callable[[str, dict[str, Any], Written | None], None]) -> None:
        self.core = core
        self.service = core.job_service
        self.job = job
        self.send = send
        self.last = detailed_task(self.service, job)  # (as the listen began: only changes are told)
        self.completed: jobmod.Job | None = None

    async def follow(self, request: RequestContext) -> None:
        with contextlib.suppress(UnknownComponent):  # its record went away: nothing more to tell
            await self.service.follow(self.job, self.report, request)
        if self.completed is not None:  # (the last report: the following ended with it)
            job = self.completed
            result: dict[str, Any] | None
            try:
                result = await answered_result(self.service, job)
            except Exception as exc:  # (an OSError, a store refusing a record it read: whatever the keep met)
                log.warning("task %s: its data could not be linked (%s: %s); its result is told whole",
                            job.id, type(exc).__name__, exc)
                result = None  # (the result as stored)
            self.tell(*self.told(job, result))

    def told(self, job: jobmod.Job, result: dict[str, Any] | None) -> tuple[dict[str, Any], Written | None]:
        """The completed ``job``'s ``DetailedTask`` with ``result``; one over the server's ``max_event_bytes`` (default
        the official client's 1 MiB) for one event with a tool error naming its size instead
        (:func:`~..results.event_bound.hold_task_to_event`): the client would drop the event, and with it the listen.
        ``tasks/get`` answers the result whole, as JSON. With it, its text as written to measure it (the
        notification copies it), or None."""
        task = detailed_task(self.service, job, result)
        try:
            text = hold_task_to_event(task, job.id, job.tool, held=held_to_schema(self.core.registry.tools, job.tool),
                                      bound=self.core.result_options.max_event_bytes,
                                      via="the last notifications/tasks of a subscriptions/listen",
                                      read_with="tasks/get")
        except ResultTooLarge as exc:
            return detailed_task(self.service, job, tool_error_result(str(exc))), None
        return task, written_of(task, text)

    def report(self, job: jobmod.Job) -> None:
        if task_status(job) == jobmod.COMPLETED:  # (also an isError result: every result is held to one event)
            self.completed = job  # told by follow, off this report (its data may be kept first)
        else:
            self.tell(detailed_task(self.service, job))

    def tell(self, task: dict[str, Any], written: Written | None = None) -> None:
        if task != self.last:
            self.last = task
            self.send("notifications/tasks", task, written)


def _cancel(waiter: asyncio.Future[Any]) -> None:
    waiter.cancel()


def _logged(task_id: str, follower: asyncio.Future[Any]) -> None:
    """Log how the following of task ``task_id`` failed, if it did (nobody awaits it: it would go unseen)."""
    if not follower.cancelled() and follower.exception() is not None:
        log.error("the listen's following of task %s failed", task_id, exc_info=follower.exception())
