"""The provenance layer of the call pipeline: one record per tool call and per job.

Every ``tools/call`` that reaches a tool's function (and is not turned off for the tool or the
server) leaves a record in the :class:`~.records.ProvenanceStore`; its result's ``_meta`` names
the record's URI under :data:`~.records.META_KEY`. A call that starts a job (``@async_tool``, a
task) gets its record at once, marked ``working``; the job store's finish hook completes it with
the job's end, where it ran and its result's digest, and names it in the finished job's result
``_meta`` too. ``resources/read`` of a record's URI answers the record as JSON to its owner only
(anyone else, and an expired or unknown record, gets the same "not found" as any unknown URI).

Source: MCP 2025-11-25, Basic § ``_meta`` (namespaced keys); Server § Resources § Reading resources.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import logging
import secrets
import threading
import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Protocol

from ..jobs.record import TERMINAL, Job
from ..results.store import owner_of
from ..wire import trace_context
from . import capture
from .records import META_KEY, ProvenanceStore, record_id_of, record_uri

if TYPE_CHECKING:
    from ..pipeline import CallNext, Middleware, Request
    from ..registry.components import Tool

log = logging.getLogger("nanohubmcp.provenance")

OFF = "provenance_off"
"""``Tool.extra`` key: True when the tool's calls leave no record (``provenance=False``)."""
CACHE_META = "io.nanohub/cache"
"""The ``_meta`` key of a result the result cache answered or stored: ``{"hit": bool, ...}``."""
MAX_OPEN_JOBS = 10_000
"""Jobs whose records wait for their end at most (the job store's own default bound)."""
MAX_ENDED_JOBS = 256
"""Ended jobs whose records are not open yet, kept at most (the window is one call's answer)."""


class ToolLookup(Protocol):
    def get(self, name: str) -> Tool | None: ...


def trace_ids() -> tuple[str | None, str | None]:
    """The trace and span ids (hex) of the request's server span, or ``(None, None)`` when the
    server does not trace (the tracing layer runs outside this one, so its span is current)."""
    ids = trace_context.current_trace_ids()
    return ids if ids is not None else (None, None)


class RecordIds:
    """Unguessable record ids without a system call each: the SHA-256 of a random key of this
    process and a counter (``os.urandom`` per id cost more than the rest of a record here)."""

    def __init__(self) -> None:
        self._key = secrets.token_bytes(32)
        self._count = itertools.count()
        self._lock = threading.Lock()

    def next(self) -> str:
        with self._lock:
            number = next(self._count)
        digest = hashlib.sha256(self._key + number.to_bytes(8, "big")).digest()[:18]
        return base64.urlsafe_b64encode(digest).decode()


class Recorder:
    """Writes provenance records: the layer (:meth:`layer`) and the job store's finish hook
    (:meth:`job_finished`).

    Args:
        store: where records go.
        tools: the registry's tools.
        enabled: the server's setting (``provenance=``).
    """

    def __init__(self, store: ProvenanceStore, tools: ToolLookup, *, enabled: bool = True) -> None:
        self.store = store
        self.tools = tools
        self.enabled = enabled
        self._open: OrderedDict[str, tuple[str, str | None, dict[str, Any]]] = OrderedDict()
        # A quick job can end (on its thread) before the layer has opened its record (after the handle is
        # made): such ends wait here for the record, which then completes at once.
        self._ended: OrderedDict[str, Job] = OrderedDict()
        self._jobs_lock = threading.Lock()
        self._ids = RecordIds()

    def layer(self) -> Middleware:
        """The pipeline layer (it records ``tools/call`` and answers reads of record URIs)."""

        async def provenance(request: Request, call_next: CallNext) -> dict[str, Any]:
            method = request.method
            if method == "resources/read":
                return self._read(request) or await call_next(request)
            if method != "tools/call" or not self.enabled:
                return await call_next(request)
            tool = request.tool
            if tool is None or tool.extra.get(OFF):
                return await call_next(request)
            started = time.time()
            request.context.provenance_id = self._ids.next()  # the panel's call log names it
            result = await call_next(request)
            if result.get("resultType") == "input_required":
                return result  # not done: the client's retry with the answers is the call recorded
            try:
                self._record(request, tool, started, result)
            except Exception:  # a record must never cost the caller its answer
                log.exception("could not record the provenance of a call of %s", tool.name)
            return result

        return provenance

    # -- writing ------------------------------------------------------------------------------
    def _record(self, request: Request, tool: Tool, started: float, result: dict[str, Any]) -> None:
        context = request.context
        code = capture.code_of(tool)
        arguments = request.params.get("arguments")
        arguments = arguments if isinstance(arguments, dict) else {}
        trace_id, span_id = trace_ids()
        principal = request.principal
        meta = result.get("_meta") if isinstance(result.get("_meta"), dict) else None
        cached = meta.get(CACHE_META) if meta is not None else None
        record_id = context.provenance_id or self._ids.next()
        digest, kept = capture.kept_result(result)
        self.store.keep_source(code["hash"], code["source"])
        body: dict[str, Any] = {
            "id": record_id,
            "uri": record_uri(record_id),
            "tool": tool.name,
            "code": {key: code[key] for key in ("hash", "module", "qualname", "version")},
            "python": {"version": code["python"], "implementation": code["implementation"]},
            "packages": code["packages"],
            "arguments": capture.stored_arguments(arguments, capture.secret_names(tool.input_schema)),
            "principal": str(principal.subject) if principal is not None else None,
            "session": request.session_id,
            "request_id": request.id,
            "protocol_version": str(request.protocol_version),
            "trace_id": trace_id,
            "span_id": span_id,
            "started": started,
            "ended": time.time(),
            "executor": "event-loop" if tool.is_coroutine else "worker-pool",
            "where": capture.here(),
            "status": "failed" if result.get("isError") else "completed",
            "result_digest": digest,
            "result": kept,
            "resource_links": capture.resource_links(result),
            "cache": ("hit" if cached.get("hit") else "miss") if isinstance(cached, dict) else None,
        }
        owner = owner_of(context)
        job_id = context.job_id
        if job_id is not None and (cached is None or not cached.get("hit")):
            body.update(
                job_id=job_id,
                status="working",
                ended=None,
                result_digest=None,
                result=None,
                resource_links=[],
                handle_digest=digest,
            )
            with self._jobs_lock:
                self._open[job_id] = (record_id, owner, body)
                while len(self._open) > MAX_OPEN_JOBS:
                    self._open.popitem(last=False)
                ended = self._ended.pop(job_id, None)
        else:
            ended = None
        self.store.put(record_id, owner, body)
        result.setdefault("_meta", {})[META_KEY] = body["uri"]
        if ended is not None:
            self.job_finished(ended)

    def job_finished(self, job: Job) -> None:
        """The job store's hook (before the end is stored): complete the job's record and name
        it in the job's result ``_meta``."""
        if job.status not in TERMINAL:
            return
        with self._jobs_lock:
            opened = self._open.pop(job.id, None)
            if opened is None:  # the record is not open yet: it completes when it is
                self._ended[job.id] = job
                while len(self._ended) > MAX_ENDED_JOBS:
                    self._ended.popitem(last=False)
                return
        record_id, owner, body = opened
        meta = job.task_meta() or {}
        slurm = meta.get("slurm") if isinstance(meta.get("slurm"), dict) else None
        where = dict(body["where"])
        where.update(job.where or {})
        if slurm is not None:
            where.update(slurm_job_id=slurm.get("job_id"), node=slurm.get("node"))
        result = job.result or {}
        digest, kept = capture.kept_result(result) if job.result is not None else (None, None)
        body = {
            **body,
            "status": job.status,
            "ended": job.finished_at or time.time(),
            "executor": job.executor,
            "where": where,
            "result_digest": digest,
            "result": kept,
            "resource_links": capture.resource_links(result),
            "error": job.status_message if job.status != "completed" else None,
        }
        if job.executor_ref:
            body["executor_ref"] = job.executor_ref
        self.store.put(record_id, owner, body)
        if job.result is not None:
            job.result = {**job.result, "_meta": {**(job.result.get("_meta") or {}), META_KEY: body["uri"]}}

    # -- reading ------------------------------------------------------------------------------
    def _read(self, request: Request) -> dict[str, Any] | None:
        uri = request.params.get("uri")
        record_id = record_id_of(uri) if isinstance(uri, str) else None
        if record_id is None:
            return None
        body = self.store.get(record_id, owner_of(request.context))
        if body is None:
            return None  # the handler answers "not found" as for any unknown URI
        text = json.dumps(body, indent=1, sort_keys=True, default=str)
        answer: dict[str, Any] = {"contents": [{"uri": uri, "mimeType": "application/json", "text": text}]}
        if request.context.modern:  # 2026-07-28 caching hints: a finished record no longer changes
            ended = body.get("ended")
            left = ended + self.store.ttl - time.time() if body.get("status") != "working" and ended else 0.0
            answer.update(ttlMs=max(0, int(left * 1000)), cacheScope="private")
        return answer
