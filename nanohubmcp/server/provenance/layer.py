"""The provenance layer of the call pipeline: one record per tool call and per job.

Every ``tools/call`` that reaches its handler (and is not turned off for the tool or the server)
leaves a record in the :class:`~.records.ProvenanceStore`; its result's ``_meta`` names
the record's URI under :data:`~.records.META_KEY`. A call that starts a job (``@async_tool``, a
task) gets its record at once, marked ``working``; the job store's finish hook completes it with
the job's end, where it ran and its result's digest, and names it in the finished job's result
``_meta`` too. A call a middleware answered itself, never handing it on to the handler, whose
arguments the tool's input schema refused, that could not start (every worker busy, a notebook
kernel running a cell) or whose job could not be made (the job store full)
(:data:`~nanohubmcp.server.wire.request.ANSWERED_BY_LAYER`) leaves no record: no code of the tool ran.
A call the server's stop cuts short (its client answered the stopping server's -32000, REST 503) ran: it
is recorded, as failed (:data:`STOPPED_TEXT`), and a stop writes the records still pending at once.
``resources/read`` of a record's URI answers the record as JSON to its owner only
(anyone else, and an expired or unknown record, gets the same "not found" as any unknown URI).

Source: MCP 2025-11-25, Basic § ``_meta`` (namespaced keys); Server § Resources § Reading resources.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Protocol

from ...errors import InvalidParams, ResourceNotFound
from ...protocol.content import tool_error_result
from ...protocol.uris import comparison_form
from ...schema.paths import echoed, uri_data
from ..jobs.record import TERMINAL, Job
from ..results.owners import owner_of
from ..shutdown import CUT_OFF, STOPPED
from ..wire.request import ANSWERED_BY_LAYER, CLIENT_CANCELLED, RAN_ON
from ..wire.trace_context import SPAN
from . import code_facts
from .code_files import WATCHED
from .handover import CACHE_META, CACHED_FROM, CANCELLED, NOT_ANSWERED, JobEnd
from .record_ids import RecordIds
from .records import META_KEY, ProvenanceStore, record_id_of
from .rows import URI_PREFIX
from .tool_options import OFF

if TYPE_CHECKING:
    from ..middleware import CallNext, Middleware, Request
    from ..registry.components import Tool

log = logging.getLogger("nanohubmcp.provenance")

STOPPED_TEXT = "the server stopped while this call ran: it did not complete; it may be sent again"
"""The error of the record of a call the server's stop cut short (its client got the stopping server's
-32000, or REST's 503)."""
STOPPED_RESULT: dict[str, Any] = tool_error_result(STOPPED_TEXT, meta={NOT_ANSWERED: True})
"""What a call the stop cut short hands over: its record's error, and no result (its client got none)."""

MAX_OPEN_JOBS = 10_000
"""Jobs whose records wait for their end at most (the job store's own default bound)."""
MAX_ENDED_JOBS = 256
"""Ended jobs whose records are not open yet, kept at most (the window is one call's answer)."""


def _ran_here(here: threading.local) -> Any:
    """Where a call ran that no executor placed: the thread serving it (made once per thread)."""
    try:
        return here.ran_on
    except AttributeError:
        here.ran_on = ("event-loop", threading.current_thread())
        return here.ran_on


class ToolLookup(Protocol):
    def get(self, name: str) -> Tool | None: ...


class Recorder:
    """Records tool calls and jobs: the layer (:meth:`layer`) and the job store's finish hook
    (:meth:`job_finished`).

    On a call's path the layer mints the record's id, names it in the result's ``_meta`` and
    hands the store references to what the record needs (:data:`.handover.PendingCall`); the
    record itself is made and written by the store's writer (:class:`.records.ProvenanceStore`).

    Args:
        store: where records go.
        tools: the registry's tools.
        enabled: the server's setting (``provenance=``).
    """

    def __init__(self, store: ProvenanceStore, tools: ToolLookup, *, enabled: bool = True) -> None:
        self.store = store
        self.tools = tools
        self.enabled = enabled
        self._open: OrderedDict[str, str] = OrderedDict()  # job id -> its record's id
        # A quick job can end (on its thread) before the layer has opened its record (after the handle is
        # made): such ends wait here for the record, which then completes at once.
        self._ended: OrderedDict[str, Job] = OrderedDict()
        self._jobs_lock = threading.Lock()
        self._ids = RecordIds()

    def layer(self) -> Middleware:
        """The pipeline layer (it records ``tools/call`` and answers reads of record URIs).

        Made at the first call: the distributions table the records' package lists need starts
        being read then, in the background (:func:`.code_facts.warm`), so the writer seldom waits (again, after
        this store's server stopped: :meth:`.records.ProvenanceStore.serving`)."""
        if self.enabled:
            code_facts.warm()
            self.store.serving()
        submit = self.store.pending.add  # the store's queue itself: one call on the call's path
        ids = self._ids
        # Locals of the layer, made once (a global's or an attribute's look-up less each, on every call): the
        # ids' ready list (an id popped inline, the mint's method called only to refill it), the clock.
        ready = ids.ready
        now = time.time
        uri_prefix = URI_PREFIX
        answered_by_layer = ANSWERED_BY_LAYER
        # Per thread, made once: where a call the thread serves ran when no executor said otherwise (an
        # attribute of a thread-local, ~0.8k instructions a record less than current_thread() and a tuple).
        here = threading.local()

        async def provenance(request: Request, call_next: CallNext) -> dict[str, Any]:
            method = request.method
            if method != "tools/call":
                if method == "resources/read":
                    return await self._read(request) or await call_next(request)
                return await call_next(request)
            if not self.enabled:
                return await call_next(request)
            try:
                record_id = ready.pop()
            except IndexError:
                record_id = ids.next()
            tool = request.tool
            if tool is None or tool.extra.get(OFF):
                return await call_next(request)
            context = request.context
            context.provenance_id = record_id  # the panel's call log names it
            watched = tool.extra.get(WATCHED)  # a tool whose code is files: the version this call runs
            ran = watched.current().hash if watched is not None else None
            started = now()
            try:
                result = await call_next(request)
            except BaseException:
                # The server's stop cut the call short (answered ServerStopping, or its task cancelled at the end
                # of the grace, its client's cancel or not): its code ran, so it is recorded, as failed (a call
                # refused at arrival is never marked stopped; one its client cancelled that ends before the stop's
                # grace does ends in a result and is recorded below).
                slots = context.slots
                if (slots.get(STOPPED) or slots.get(CUT_OFF)) and context.job_id is None \
                        and not slots.get(answered_by_layer):
                    submit((record_id, tool, context.principal, context.session, context.message.id, context.version,
                            None, request.params.get("arguments"), dict(STOPPED_RESULT), started, now(),
                            context.slots.get(RAN_ON) or _ran_here(here), context.slots.get(SPAN), None, ran))
                raise
            try:
                if result.get("resultType") == "input_required":
                    return result  # not done: the client's retry with the answers is the call recorded
            except AttributeError:
                return result  # not a result: the dispatcher names the middleware that answered it
            slots = context.slots
            if slots.get(answered_by_layer):
                # A middleware answered without handing the call on, or the schema refused the arguments: no
                # code of the tool ran, so there is nothing a record could truthfully name (its code, executor).
                context.provenance_id = None
                return result
            cached_from = slots.get(CACHED_FROM)
            meta = result.get("_meta")
            if isinstance(meta, dict) and META_KEY in meta:
                # A tool's own answer from an earlier call's run (a Sim2L's stored run) names that call's record,
                # marked a hit as the result cache's are: this call's record names it as cached_from.
                named = meta.pop(META_KEY)
                hit = meta.get(CACHE_META)
                if cached_from is None and isinstance(named, str) and isinstance(hit, dict) and hit.get("hit"):
                    cached_from = named
            ran_on = slots.get(RAN_ON)
            if ran_on is None:  # ran on the thread serving the call (its tuple read inline: a call fewer)
                try:
                    ran_on = here.ran_on
                except AttributeError:
                    ran_on = _ran_here(here)
            # References only (the record is made on the store's writer thread): see handover.PendingCall. Not the
            # request's context: what it holds (the message, the stream, the transport's callbacks) would outlive
            # the call until the record is made, and the garbage collector would walk it meanwhile.
            pending = (
                record_id,
                tool,
                context.principal,
                context.session,
                context.message.id,
                context.version,
                context.job_id,
                request.params.get("arguments"),
                dict(result) if not slots.get(CLIENT_CANCELLED) else {**result, "_meta": {NOT_ANSWERED: CANCELLED}},
                started,
                now(),
                ran_on,
                slots.get(SPAN),
                cached_from,
                ran,
            )
            if submit(pending):
                result.setdefault("_meta", {})[META_KEY] = uri_prefix + record_id
                if context.job_id is not None:
                    self._opened(context.job_id, record_id, result)
            return result

        return provenance

    # -- jobs -----------------------------------------------------------------------------------
    def _opened(self, job_id: str, record_id: str, result: dict[str, Any]) -> None:
        """A call started job ``job_id`` (its record, handed over, says ``working``)."""
        meta = result.get("_meta") or {}
        cached = meta.get(CACHE_META)
        if isinstance(cached, dict) and cached.get("hit"):
            return
        with self._jobs_lock:
            self._open[job_id] = record_id
            while len(self._open) > MAX_OPEN_JOBS:
                self._open.popitem(last=False)
            ended = self._ended.pop(job_id, None)
        if ended is not None:
            self.job_finished(ended)

    def job_finished(self, job: Job) -> None:
        """The job store's hook (before the end is stored): complete the job's record and name
        it in the job's result ``_meta``.

        A job of an earlier server process (settled when the store opens, or ended here after
        its executor took it back) names its record itself (:attr:`.Job.provenance_id`): that
        process wrote the record, this one completes it."""
        if job.status not in TERMINAL:
            return
        with self._jobs_lock:
            record_id = self._open.pop(job.id, None)
            if record_id is None and job.request is None:  # rebuilt from the store: not started here
                record_id = job.provenance_id
                if record_id is None:
                    return  # recorded by a version that did not keep the id with the job (or not at all)
            elif record_id is None:  # the record is not open yet: it completes when it is
                self._ended[job.id] = job
                while len(self._ended) > MAX_ENDED_JOBS:
                    self._ended.popitem(last=False)
                return
        self.store.submit(JobEnd(record_id, job))
        if job.result is not None:
            uri = URI_PREFIX + record_id
            job.result = {**job.result, "_meta": {**(job.result.get("_meta") or {}), META_KEY: uri}}

    # -- reading ------------------------------------------------------------------------------
    def kept_note(self) -> str:
        """What a not-found read of a record adds: how long and how many records are kept (the same
        text for every record id, so it tells nothing of any record or owner)."""
        store = self.store
        return (f" (a provenance record is readable by its owner for job_ttl_seconds, {store.ttl:g} s, and each "
                f"owner keeps its newest {store.shares.per_owner:,} records: older ones are dropped)")

    def _not_found(self, request: Request, uri: str) -> InvalidParams | ResourceNotFound:
        """The refusal of a record ``uri`` not readable (-32002; -32602 in 2026-07-28), with :meth:`kept_note`."""
        message = f"Resource not found: {echoed(uri)}{self.kept_note()}"
        return InvalidParams(message, uri_data(uri)) if request.context.modern else ResourceNotFound(
            message, uri_data(uri))

    async def _read(self, request: Request) -> dict[str, Any] | None:
        uri = request.params.get("uri")
        if not isinstance(uri, str):
            return None
        record_id = record_id_of(uri)
        if record_id is None:
            if comparison_form(uri).startswith(URI_PREFIX):
                raise self._not_found(request, uri)  # no id a process mints: the same text as any other
            return None
        owner = owner_of(request.context)
        if self._ids.minted_here(record_id):  # made here: written once what is pending here is
            body = self.store.get(record_id, owner)
        else:  # perhaps by another process sharing the records, still in its writer's batch
            body = await self.store.get_written_elsewhere(record_id, owner)
        if body is None:  # unknown, expired, dropped past its owner's share and another's alike
            raise self._not_found(request, uri)
        text = json.dumps(body, indent=1, default=str)  # the kept result in its own key order
        answer: dict[str, Any] = {"contents": [{"uri": uri, "mimeType": "application/json", "text": text}]}
        if request.context.modern:  # 2026-07-28 caching hints: a finished record no longer changes
            ended = body.get("ended")
            left = ended + self.store.ttl - time.time() if body.get("status") != "working" and ended else 0.0
            answer.update(ttlMs=max(0, int(left * 1000)), cacheScope="private")
        return answer
