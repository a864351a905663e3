"""The job tools: ``get_job_result`` and ``cancel_job``, built in for a server with an ``@async_tool``, and
what they answer for a job (its status, its value as the tool's direct call answers it, the blocks of its result).

A client without MCP Tasks polls and cancels the jobs the job service (:mod:`.service`) started with
them, under the owner checks of the job store (:mod:`..jobs`): a job the caller may not see is
"not_found", whoever started it. Starting, finishing, handing over and re-attaching jobs are the job
service's, not this module's.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any

from ...errors import INTERNAL_MESSAGE, InternalError, NanohubMCPError, UnknownComponent
from ...protocol import jsonenc
from ...protocol.encoded import Encoded
from ...protocol.result_types import ToolResult
from ..calls.context import Context
from ..jobs import service as jobmod
from ..jobs.visibility import echoed_id
from ..results.named_blocks import in_place, placeholders, renumbered
from . import keep_threads

if TYPE_CHECKING:
    from .job_service import JobService


SLURM_META = "org.nanohub/slurm"
"""The task metadata key where the Slurm executor says where a job is (:mod:`.slurm_announce`)."""
SLURM_FACTS = ("job_id", "state", "node", "reason")
"""What ``get_job_result`` answers of it, as ``slurm``."""


def job_head(job: jobmod.Job, status: str) -> dict[str, Any]:
    """The first fields of ``get_job_result``'s answer: ``status``, ``job_id`` and, for a job run on Slurm, ``slurm``:
    ``{"job_id": Slurm's job id, "state": Slurm's state ("PENDING", "RUNNING", "COMPLETED"...), "node": the node it
    runs or ran on ("" until known), "reason": Slurm's reason while it waits ("" else)}``, the facts of the task's
    ``_meta["org.nanohub/slurm"]``: a client that cannot use tasks, or does not read log messages, sees them."""
    head: dict[str, Any] = {"status": status, "job_id": job.id}
    where = (job.task_meta() or {}).get(SLURM_META)
    if isinstance(where, dict):
        head["slurm"] = {key: where.get(key) or "" for key in SLURM_FACTS}
    return head


def job_status(job: jobmod.Job) -> dict[str, Any]:
    """What ``get_job_result`` answers for ``job`` (idempotent until the job expires): while it runs
    ``{"status": "running", "job_id"}``, with ``"queued": true`` (and ``ahead``, or the batch queue's
    ``message``) while it waits, and ``"progress": {"progress", "total"?, "message"?}`` once it reported
    some (:meth:`~nanohubmcp.server.jobs.record.Job.progress_report`); then ``done`` with its
    ``result`` (:func:`job_value`, each block named by its index in :func:`job_answer`'s content:
    :func:`answer_places`), ``error`` with the ``error``, or ``cancelled``. A job run on Slurm has ``slurm`` beside
    its ``job_id`` in every state (:func:`job_head`)."""
    if job.status in (jobmod.WORKING, jobmod.INPUT_REQUIRED):
        running = job_head(job, "running")
        if job.waiting is not None:  # waiting for a turn at its executor (jobs.fair), in this process
            running.update(queued=True, ahead=job.waiting())
        elif job.status_message == jobmod.QUEUED:  # the same, seen from another process
            running["queued"] = True
        elif jobmod.queued_elsewhere(job.status_message):  # in a batch system's queue (Slurm: with its reason)
            running.update(queued=True, message=job.status_message)
        report = job.progress_report()  # the last ctx.report_progress, from the job's record on any process
        if report is not None:
            running["progress"] = report
        return running
    if job.status == jobmod.COMPLETED:
        return {**job_head(job, "done"), "result": polled_value(job)}
    if job.status == jobmod.CANCELLED:
        return job_head(job, "cancelled")
    error = job.status_message or (job.error or {}).get("message") or "the job failed"
    return {**job_head(job, "error"), "error": error}


def polled_value(job: jobmod.Job) -> Any:
    """The ``result`` of a done ``job`` as a poll answers it: :func:`job_value`, each block named by its index in
    :func:`job_answer`'s content (:func:`answer_places`)."""
    result = job.result or {}
    value = job_value(result, json_text=job.json_text, places=job.item_places)
    at = answer_places(result.get("content", []))
    return renumbered(value, at) if at else value


def job_value(result: dict[str, Any], *, json_text: bool = False, places: list[Any] | None = None) -> Any:
    """The plain value of a finished job, as the tool's direct call answers it: a list mixing blocks
    with data as a REST call answers it, each block named in its place (``places``, the job's
    ``item_places``: ``["<image: content[0]>", "cap", {"n": 1}]``), a number, boolean,
    list or dict of data as that value (its one text block is its JSON: ``json_text``), None as
    None (no block at all), an array's or a table's data as its JSON value (its structured content's
    ``"result"``, as a list's: the value was not a dict, so ``{"result": ...}`` wraps it; a job
    stored by an earlier version reads so too), else the structured content, else the text, else the blocks as
    :func:`placeholders` (a picture's place says ``"<image: content[i]>"``; its data is in block i,
    never in the value). A non-finite number keeps its text (``"Infinity"``: JSON has no such
    number, and null would read as no value)."""
    if places is not None:  # a list mixing blocks with data, shaped for MCP: answered as over REST
        whole = in_place(result, places)
        if whole is not None:
            return whole
    content = result.get("content", [])
    if json_text and not content:
        return None  # the tool returned None: null, not the empty block list
    single = len(content) == 1 and content[0].get("type") == "text"
    if single and json_text:
        text = content[0]["text"]
        try:
            value = json.loads(text)
        except ValueError:  # (never written so; a record's text is still an answer)
            return text
        return text if isinstance(value, float) and not math.isfinite(value) else value
    if "structuredContent" in result:
        structured = result["structuredContent"]
        if not json_text and isinstance(structured, dict) and structured.keys() == {"result"}:
            return structured["result"]  # an array's or a table's data (not a dict: a dict's text is its JSON)
        return structured
    if single:
        return content[0]["text"]
    return placeholders(content)


def _carried(block: object) -> bool:
    """A block of a job's result that :func:`job_answer` carries: any but text (a caption, a note, the data's JSON)."""
    return isinstance(block, dict) and block.get("type") != "text"


def carried_blocks(job: jobmod.Job) -> list[dict[str, Any]]:
    """The blocks of ``job``'s result that :func:`job_answer` carries after its status text, in their order
    (images, embedded resources, resource links: not its texts, which its value holds)."""
    return [block for block in (job.result or {}).get("content", ()) if _carried(block)]


def answer_places(content: list[Any]) -> dict[int, int]:
    """Where the blocks of a job's result ``content`` that :func:`job_answer` carries sit in its content:
    block 0 is the status text, then those blocks in their order (``[image, "cap", image]`` -> ``{0: 1, 2: 2}``).
    A polled job's value names its blocks so, over MCP and REST alike: ``"<image: content[1]>"`` is the
    block a client polling over MCP holds at ``content[1]``; ``tasks/result``, which answers the job's own
    result, names them by their own index (but for data it links: the kept data is the poll's value, and
    the note comes first there, so its blocks sit at the same index)."""
    carried = [i for i, block in enumerate(content) if _carried(block)]
    return {i: place for place, i in enumerate(carried, 1)}


def job_result_tool(service: JobService) -> Callable[..., Awaitable[dict[str, Any] | ToolResult]]:
    """The built-in ``get_job_result`` tool of a server's job ``service``: an ``@async_tool`` caller polls it. Over
    MCP a done job's data over ``max_inline_bytes`` is kept once per job and linked (``service.polled_data``, which
    ``tasks/result`` shares: the same link); over REST (``Context.inline_limit`` None) the answer carries the value."""

    async def get_job_result(ctx: Context, job_id: str) -> dict[str, Any] | ToolResult:
        """Get the status or result of a job started by an async tool. Read "status": a job that failed answers
        "status": "error" with its "error" (isError false: the poll itself worked).

        Args:
            job_id: the job_id returned when the async tool was called.
        """

        async def answer(job: jobmod.Job) -> dict[str, Any] | ToolResult:
            if ctx.inline_limit is None or job.status != jobmod.COMPLETED:
                return job_answer(job)
            # (off the loop, on the keep pool: it may write the data to the results folder, or wait for another
            # answer's keep; not on the default executor, whose threads a wait would hold)
            return await keep_threads.off_loop(job_answer, job, service.polled_data.kept)

        return await for_callers_job(service, ctx, job_id, answer)

    return get_job_result


async def for_callers_job(
    service: JobService, ctx: Context, job_id: str,
    answer: Callable[[jobmod.Job], Awaitable[dict[str, Any] | ToolResult]],
) -> dict[str, Any] | ToolResult:
    """What a job tool answers: ``answer(job)`` for the job ``job_id`` when the caller of ``ctx`` (its
    session and principal) may see it, else :func:`not_found`; a fault of the server's own on the way is an
    :class:`~nanohubmcp.errors.InternalError` (:func:`own_faults`)."""
    with own_faults():
        try:
            job = service.job_of(job_id, ctx.session_id, ctx.principal)
        except UnknownComponent:
            return not_found(job_id)
        return await answer(job)


@contextlib.contextmanager
def own_faults() -> Iterator[None]:
    """Inside, an exception of no kind the package raises on purpose is a fault of the server's own
    job tools, not of the tool a user wrote: the caller gets :data:`~nanohubmcp.errors.INTERNAL_MESSAGE`
    (REST 500 ``{"error": "Internal error; see the server log"}``), the log its traceback — never its
    message, which names the server's internals (a codec, a store, a path)."""
    try:
        yield
    except NanohubMCPError:  # meant for the caller: not found, the store away (503), a limit
        raise
    except Exception as exc:
        raise InternalError(INTERNAL_MESSAGE) from exc


def not_found(job_id: str) -> ToolResult:
    """The answer of the job tools for a job the caller may not see: a tool error (isError), still
    carrying the status object pollers read (``job_id`` as sent, or its first 64 characters and "…")."""
    return ToolResult(
        is_error=True,
        structured_content={
            "status": "not_found",
            "job_id": echoed_id(job_id),
            "error": "No such job for this caller (wrong id, expired, or started by another user or session)",
        },
    )


def job_cancel_tool(service: JobService) -> Callable[..., Awaitable[dict[str, Any] | ToolResult]]:
    """The built-in ``cancel_job`` tool of a server's job ``service``: a client without MCP Tasks cancels a job with
    it, under the same owner checks as ``get_job_result`` (:meth:`JobStore.cancel`: on any
    process of the server)."""

    async def cancel_job(ctx: Context, job_id: str) -> dict[str, Any] | ToolResult:
        """Cancel a job started by an async tool: it stops and ends "cancelled" (a job that already
        ended is left as it is, and its status is answered).

        Args:
            job_id: the job_id returned when the async tool was called.
        """

        async def cancel(job: jobmod.Job) -> dict[str, Any]:
            if job.status in jobmod.TERMINAL:
                status = job_status(job)
                status.pop("result", None)
                return {**status, "message": "the job had already ended; get_job_result gives its outcome"}
            return job_status(service.cancel(job))

        return await for_callers_job(service, ctx, job_id, cancel)

    return cancel_job


Kept = Callable[[jobmod.Job, Callable[[], Any]], "list[dict[str, Any]] | None"]
"""Where a done job's polled value (made by the callable, when needed) goes when it is too large for the answer
(:meth:`.polled_data.PolledData.kept`): the ``[note, resource_link]`` answered in its place, or None to answer it."""


def job_answer(job: jobmod.Job, kept: Kept | None = None) -> dict[str, Any] | ToolResult:
    """``get_job_result``'s answer: :func:`job_status` (its JSON text block and structured
    content), followed, once the job is done, by the non-text blocks of its result (images,
    embedded resources, resource links: a Rappture plot, a submit run's output files) in their
    order — a ``"<content[i]>"`` in the result names block i of this answer (:func:`answer_places`). Once the job
    ended (done, error or cancelled), the answer's ``_meta["io.nanohub/provenance"]`` names the
    job's provenance record (:meth:`~nanohubmcp.server.jobs.record.Job.provenance_uri`), as the
    job handle did: REST carries it as the ``Link`` header.

    With ``kept`` (an MCP poll), a done job's value too large to answer is kept and linked: the blocks ``kept``
    gives (a note with a preview, then a ``resource_link``) follow the result's own, and the status's
    ``result`` names the link (``"<content[N]>"``), as a direct MCP call of the tool answers such data."""
    done = job.status == jobmod.COMPLETED
    aside = kept(job, functools.partial(polled_value, job)) if kept is not None and done else None
    status = job_status(job) if aside is None else job_head(job, "done")
    uri = job.provenance_uri()
    meta = {jobmod.PROVENANCE_META: uri} if uri is not None else None
    if status["status"] != "done":
        return status if meta is None else ToolResult(structured_content=status, meta=meta)
    blocks = carried_blocks(job)
    if aside is not None:  # [note, link]: the link is the answer's last block
        blocks = [*blocks, *aside]
        status["result"] = f"<content[{len(blocks)}]>"
    # The job's value was held to MAX_JSON_DEPTH when it ended; the status around it is one level
    # more, which is not the tool's to answer for: its text is written here, as it is.
    text = jsonenc.dumps(status)
    return ToolResult(content=[{"type": "text", "text": text}, *blocks], structured_content=Encoded(text),
                      meta=meta)
