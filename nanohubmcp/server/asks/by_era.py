"""One way for a function to ask the client for input, whatever the era of the call.

``Context.elicit``/``sample``/``list_roots``/``ask`` come here. The answer arrives by one of
three routes, chosen per request:

- handshake era: a server→client request on the call's stream, answered through the
  session (``ClientRequests``);
- 2026-07-28, inside a task: the task waits in ``input_required`` for ``tasks/update``;
- 2026-07-28, otherwise: multi round-trip — the answer is in the retried request, or the
  call ends with ``input_required`` (:class:`~.input_requests.InputRequired`).

In every era the client must have declared the capability an input request needs; in
2026-07-28 a missing one is error -32021 (``MissingClientCapability``), since the server must
not send what the client cannot answer.

Source: MCP 2026-07-28, Basic § Patterns § Multi Round-Trip Requests; Client § Elicitation,
Sampling, Roots; tasks extension (SEP-2663) § Task Update Requests.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...errors import ClientRequestError, MissingClientCapability, UnknownComponent
from ..jobs.record import TASK_JOB
from .input_requests import ELICIT, EXCHANGE, ROOTS, SAMPLE, InputRequired

if TYPE_CHECKING:
    from ..jobs.record import Job
    from ..wire.request import RequestContext
    from .hosts import AskHost


_CAPABILITY = {ELICIT: "elicitation", SAMPLE: "sampling", ROOTS: "roots"}


def required_capabilities(request: RequestContext,
                          requests: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The client capabilities ``requests`` need that the request did not declare (``{}``: none)."""
    caps = request.client_capabilities or {}
    missing: dict[str, Any] = {}
    for body in requests.values():
        method = body["method"]
        name = _CAPABILITY[method]
        if not isinstance(caps.get(name), dict):
            missing[name] = {}
        elif (method == ELICIT and (body.get("params") or {}).get("mode") == "url"
              and not isinstance(caps[name].get("url"), dict)):
            missing[name] = {"url": {}}
    return missing


def normalize(requests: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Check ``{key: {"method", "params"?}}`` from user code.

    Raises:
        ValueError: an unknown method or a malformed entry (a programming error in the tool).
    """
    out: dict[str, dict[str, Any]] = {}
    for key, body in requests.items():
        if not isinstance(key, str) or not key:
            raise ValueError("ctx.ask: every key must be a non-empty string")
        if not isinstance(body, Mapping) or body.get("method") not in _CAPABILITY:
            raise ValueError(f"ctx.ask: {key!r} must be {{'method': 'elicitation/create' | "
                             "'sampling/createMessage' | 'roots/list', 'params': {...}}")
        params = body.get("params")
        if params is not None and not isinstance(params, Mapping):
            raise ValueError(f"ctx.ask: {key!r}: params must be a dict")
        out[key] = {"method": body["method"], "params": dict(params or {})}
    return out


def _wire(request: RequestContext, body: dict[str, Any]) -> dict[str, Any]:
    """The input request as 2026-07-28 sends it (no ``elicitationId``; that went with 2025-11-25)."""
    params = body.get("params") or {}
    if body["method"] == ELICIT and "elicitationId" in params:
        params = {k: v for k, v in params.items() if k != "elicitationId"}
    return {"method": body["method"], "params": params}


async def ask_many(core: AskHost, request: RequestContext, requests: Mapping[str, Any], timeout: float | None,
                   *, in_job: bool) -> dict[str, Any]:
    """Ask the client everything in ``requests`` at once; returns ``{key: result}``.

    Raises:
        InputRequired: 2026-07-28 multi round-trip: some answers are not in the request yet.
        MissingClientCapability: 2026-07-28: the client cannot answer one of the requests.
        ClientRequestError / ClientRequestTimeout: as ``ClientRequests.ask`` (handshake era),
            or a 2026-07-28 background job that is no task has no way to ask.
    """
    named = normalize(requests)
    if not request.modern:
        keys = list(named)
        results = await asyncio.gather(*(client_request(
            core, request, named[k]["method"], named[k]["params"] or None, timeout) for k in keys))
        return dict(zip(keys, results, strict=True))
    wire = {key: _wire(request, body) for key, body in named.items()}
    missing = required_capabilities(request, wire)
    if missing:
        raise MissingClientCapability(
            f"Missing required client capability: this call needs {', '.join(missing)}, which the request's "
            "clientCapabilities do not declare", {"requiredCapabilities": missing})
    job = request.get(TASK_JOB)
    if job is not None:
        return await core.task_inputs.ask(job, wire, timeout)
    exchange = request.get(EXCHANGE)
    if exchange is None or in_job:
        raise ClientRequestError(
            "this call cannot ask the client for input: it runs in the background without a task "
            "(the client did not declare the io.modelcontextprotocol/tasks extension)")
    answers: dict[str, Any] = {}
    unanswered: dict[str, dict[str, Any]] = {}
    for key, body in wire.items():
        found, value = exchange.lookup(key, body["method"], body.get("params"))
        if found:
            answers[key] = value
        else:
            unanswered[key] = body
    if unanswered:
        raise InputRequired(unanswered)
    return answers


async def ask_one(core: AskHost, request: RequestContext, method: str, params: dict[str, Any] | None,
                  key: str | None, timeout: float | None, *, in_job: bool) -> Any:
    """Ask one thing (``elicitation/create``, ``sampling/createMessage`` or ``roots/list``).

    In 2026-07-28 calls the request gets ``key`` (default ``elicitation_1``, ``sampling_1``, ...
    in call order, the same on every retry). Raises as :func:`ask_many`.
    """
    if not request.modern:
        return await client_request(core, request, method, params, timeout)
    if key is None:
        exchange = request.get(EXCHANGE)
        job = request.get(TASK_JOB)
        # MRTR keys count calls (the same on every retry); a task makes its own keys unique.
        key = exchange.next_key(method) if exchange is not None and job is None else method.split("/", 1)[0]
    answers = await ask_many(core, request, {key: {"method": method, "params": params or {}}}, timeout,
                             in_job=in_job)
    return answers[key]


async def client_request(core: AskHost, request: RequestContext, method: str, params: dict[str, Any] | None,
                          timeout: float | None) -> Any:
    """The handshake era's server→client request (``ClientRequests.ask``); a 2025-11-25 task is
    ``input_required`` until it is answered."""
    asking = core.client_requests.ask(request, method, params, timeout)
    job = _task_of(core, request)
    return await (asking if job is None else core.task_inputs.answered(job, asking))


def _task_of(core: AskHost, request: RequestContext) -> Job | None:
    """The 2025-11-25 task ``request`` runs as, or None."""
    if request.job_id is None:
        return None
    owner = request.session.id if request.session is not None else None
    try:
        job = core.jobs.get(request.job_id, owner, request.principal)
    except UnknownComponent:  # expired meanwhile: nothing to tell
        return None
    return job if job.as_task else None
