"""Input requests of running tasks: ``input_required`` while waiting, answered by ``tasks/update``.

Inside a task the function keeps running while it waits: ``ctx.elicit`` (and the other asks)
parks the task in ``input_required`` with the request under a key, ``tasks/get`` shows every
unanswered request, and ``tasks/update`` delivers answers, one key or several at a time, once each
is of its method's shape (and an accepted form's content matches the requested schema: a wrong one
is refused with -32602 and the task keeps waiting). The task returns to ``working`` once nothing is
outstanding. Keys are unique over a task's
lifetime (a reused key gets a ``-2``, ``-3`` suffix on the wire).

A task of 2025-11-25 asks with server→client requests (``ClientRequests``) and is answered like any
call; while one waits for its answer the task is ``input_required`` too (:meth:`TaskInputs.answered`).

Each change of a task's status (and of its outstanding requests) is stored with its job
(``JobStore.changed``), so every process sharing the job store answers ``tasks/get`` with it and a
``subscriptions/listen`` on any of them is told (``JobStore.follow``). Everything here runs on the
event loop thread.

Source: MCP tasks extension ``io.modelcontextprotocol/tasks`` (SEP-2663), Task Update Requests
and Task Status Notifications.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable
from typing import Any, TypeVar

from ...errors import ClientRequestError, ClientRequestTimeout, InvalidParams
from ...protocol.client_answers import ELICIT
from ...protocol.message_values import show
from ..jobs import service as jobmod
from .answer_check import AnswerCheck
from .input_requests import check_response

T = TypeVar("T")


def shaped_answers(requests: dict[str, dict[str, Any]], responses: dict[str, Any]) -> dict[str, Any]:
    """The answers in ``responses`` to the ``requests`` (``{key: {"method", "params"}}``), each
    held to its method's result shape; answers to other keys are left out.

    Raises:
        InvalidParams: an answer is not a result of its request's method.
    """
    return {key: check_response(key, requests[key]["method"], value, requests[key].get("params"))
            for key, value in responses.items() if key in requests}


async def checked_answers(requests: dict[str, dict[str, Any]], responses: dict[str, Any]) -> dict[str, Any]:
    """:func:`shaped_answers`, and an accepted form's content held to its ``requestedSchema`` (on a
    worker thread: the first validator of a process imports jsonschema), so ``tasks/update`` refuses
    an answer the function that asked would refuse, and the task keeps waiting for a good one.

    Raises:
        InvalidParams: an answer is not a result of its request's method, or its content breaks the
            requested schema (``Invalid inputResponses["sure"]: the client's answer does not match
            the requested schema: content.name: ...``).
    """
    answers = shaped_answers(requests, responses)
    forms = {key: (requests[key]["params"]["requestedSchema"], value) for key, value in answers.items()
             if _accepted_form(requests[key], value)}
    if forms:
        problems = await asyncio.to_thread(_schema_problems, forms)
        if problems:
            raise InvalidParams("; ".join(problems))
    return answers


def _accepted_form(request: dict[str, Any], answer: Any) -> bool:
    params = request.get("params")
    return (request.get("method") == ELICIT and isinstance(params, dict) and params.get("mode", "form") == "form"
            and isinstance(params.get("requestedSchema"), dict) and answer.get("action") == "accept")


def _schema_problems(forms: dict[str, tuple[dict[str, Any], Any]]) -> list[str]:
    problems = []
    for key, (schema, answer) in forms.items():
        problem = AnswerCheck.problem(answer, AnswerCheck(schema).prepare())
        if problem is not None:
            problems.append(f"Invalid inputResponses[{show(key)}]: the client's answer {problem}")
    return problems


class _Pending:
    __slots__ = ("futures", "issued", "requests")

    def __init__(self) -> None:
        self.requests: dict[str, dict[str, Any]] = {}
        self.futures: dict[str, asyncio.Future[Any]] = {}
        self.issued: set[str] = set()


class TaskInputs:
    """Outstanding input requests of every task of one server."""

    def __init__(self) -> None:
        self._pending: dict[str, _Pending] = {}
        self._asking: dict[str, int] = {}
        """By task of 2025-11-25: how many of its server→client requests wait for an answer."""

    # -- reading -------------------------------------------------------------------------
    def outstanding(self, job_id: str) -> dict[str, dict[str, Any]]:
        """``{key: {"method", "params"}}`` still unanswered for the task (a copy)."""
        pending = self._pending.get(job_id)
        return dict(pending.requests) if pending is not None else {}

    # -- asking (the task's function) ----------------------------------------------------
    async def ask(self, job: jobmod.Job, requests: dict[str, dict[str, Any]],
                  timeout: float | None) -> dict[str, Any]:
        """Park ``job`` in ``input_required`` until every request is answered; returns the answers.

        Args:
            requests: ``{key: {"method", "params"}}``; keys are the function's own names.
        Raises:
            ClientRequestError: the task was cancelled while waiting.
            ClientRequestTimeout: no complete answer within ``timeout`` seconds.
        """
        loop = asyncio.get_running_loop()
        pending = self._pending.setdefault(job.id, _Pending())
        wire_keys: dict[str, str] = {}
        for key, body in requests.items():
            wire = key
            n = 1
            while wire in pending.issued:
                n += 1
                wire = f"{key}-{n}"
            pending.issued.add(wire)
            pending.requests[wire] = body
            pending.futures[wire] = loop.create_future()
            wire_keys[key] = wire
        futures = [pending.futures[w] for w in wire_keys.values()]

        def abandon() -> None:
            for future in futures:
                if not future.done():
                    future.cancel()

        if job.request is not None:
            job.request.on_cancel(abandon)
        job.answers_to = functools.partial(self.deliver, job)  # (answers another process received)
        self._set_status(job, pending)
        try:
            answers = await asyncio.wait_for(asyncio.gather(*futures), timeout)
        except asyncio.TimeoutError:
            raise ClientRequestTimeout(f"the client did not answer within {timeout:g} s") from None
        except asyncio.CancelledError:
            # look(): the function hears of the cancel through this error: it saw it (CancelFlag.seen)
            cancelled = job.request is not None and job.request.cancelled.look()
            if cancelled or job.status in jobmod.TERMINAL:
                raise ClientRequestError("the task was cancelled while waiting for the client") from None
            raise
        finally:
            for wire in wire_keys.values():
                pending.requests.pop(wire, None)
                pending.futures.pop(wire, None)
            self._set_status(job, pending)
        return dict(zip(wire_keys, answers, strict=True))

    async def answered(self, job: jobmod.Job, asking: Awaitable[T]) -> T:
        """A 2025-11-25 task's server→client request, ``asking``, answered: the task is ``input_required``
        until then (with the others it sends meanwhile), stored with its job so that ``tasks/get``
        says so on every process sharing the job store (MCP 2025-11-25, Utilities § Tasks, Task
        Status: ``input_required``)."""
        self._asking[job.id] = self._asking.get(job.id, 0) + 1
        self._store_status(job, jobmod.INPUT_REQUIRED)
        try:
            return await asking
        finally:
            left = self._asking.pop(job.id, 1) - 1
            if left:
                self._asking[job.id] = left
            else:
                self._store_status(job, jobmod.WORKING)

    @staticmethod
    def _store_status(job: jobmod.Job, status: str) -> None:
        if job.status in jobmod.TERMINAL or job.status == status:
            return
        job.status = status
        if job.store is not None:
            job.store.changed(job)

    # -- answering (tasks/update) --------------------------------------------------------
    def deliver(self, job: jobmod.Job, responses: dict[str, Any]) -> None:
        """Hand answers to the waiting function; unknown or already answered keys are ignored
        (``tasks/update`` held them to :func:`checked_answers` first).

        Raises:
            InvalidParams: an answer for an outstanding key is not a result of its method.
        """
        pending = self._pending.get(job.id)
        if pending is None:
            return
        outstanding = {k: body for k, body in pending.requests.items()
                       if k in pending.futures and not pending.futures[k].done()}
        accepted = shaped_answers(outstanding, responses)
        for key, value in accepted.items():  # all checked first: a bad answer delivers nothing
            pending.requests.pop(key, None)
            pending.futures[key].set_result(value)
        if accepted:
            self._set_status(job, pending)

    # -- status --------------------------------------------------------------------------
    def _set_status(self, job: jobmod.Job, pending: _Pending) -> None:
        """``input_required`` with the outstanding requests while there are some, else ``working``;
        stored with the job when that changed (``JobStore.changed``, which tells its followers)."""
        if job.status in jobmod.TERMINAL:
            return
        requests = dict(pending.requests) or None
        status = jobmod.INPUT_REQUIRED if requests else jobmod.WORKING
        if (job.status, job.input_requests) == (status, requests):
            return
        job.status, job.input_requests = status, requests
        if job.store is not None:
            job.store.changed(job)

    def forget(self, job_id: str) -> None:
        """Drop a finished task's bookkeeping."""
        pending = self._pending.pop(job_id, None)
        if pending is not None:
            for future in pending.futures.values():
                if not future.done():
                    future.cancel()
