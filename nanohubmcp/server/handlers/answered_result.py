"""A finished job's result as an MCP answer of its task gives it: :func:`answered_result`.

``tasks/result`` (2025-11-25) and ``tasks/get`` of the tasks extension (2026-07-28) answer a task's result
through it, so both link a completed job's data over ``max_inline_bytes`` as ``get_job_result`` links it: the
same kept copy, the same URI (:attr:`~..executors.job_service.JobService.polled_data`). What this module does not do:
wait for the job, add the answer's ``_meta`` (related task, provenance), or decide the task's status.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from ...errors import ResultTooLarge
from ...protocol.content import tool_error_result
from ..executors import keep_threads
from ..executors.job_tools import carried_blocks, polled_value
from ..jobs import service as jobmod

if TYPE_CHECKING:
    from ..executors.job_service import JobService

__all__ = ["answered_result"]


async def answered_result(service: JobService, job: jobmod.Job) -> dict[str, Any]:
    """The ``CallToolResult`` a task's answer gives for the ended ``job``: its stored result (``{content: []}``
    when none), but for a completed job whose data is over ``max_inline_bytes`` and whose tool declares no
    output schema (its structured content is promised): ``[note, <the result's pictures and files>,
    resource_link]`` without ``structuredContent``, as a direct call of the tool answers such data (see
    :func:`_linked`). Data larger than the store keeps (``max_kept_bytes``) is the tool error
    ``{content: [<the sizes>], isError: true}``. The keep runs off the event loop, on the keep pool
    (:mod:`..executors.keep_threads`: it may write the data to the results folder, or wait for another
    answer's keep of it).
    """
    result = job.result or {"content": []}
    if job.status != jobmod.COMPLETED or not _links_data(service, job):
        return result
    try:
        linked = await keep_threads.off_loop(_linked, service, job)  # (its waits hold no default-executor thread)
    except ResultTooLarge as exc:
        return tool_error_result(str(exc))
    return result if linked is None else linked


def _links_data(service: JobService, job: jobmod.Job) -> bool:
    """Whether ``job``'s data may be linked: its tool declares no output schema (a removed tool's none is kept)."""
    tool = service.registry.tools.get(job.tool)
    return tool is None or tool.output_schema is None


def _linked(service: JobService, job: jobmod.Job) -> dict[str, Any] | None:
    """``job``'s result with its data over ``max_inline_bytes`` kept and linked, else None (it fits).

    The data kept is the value ``get_job_result`` polls, kept once per job for every answer of it
    (:attr:`~..executors.job_service.JobService.polled_data`): one URI. The answer is ``[note, <the result's pictures
    and files>, resource_link]`` without ``structuredContent``: the note comes first so that a block the kept
    data names (``"<image: content[1]>"``, as a poll names it) is that block here too.
    """
    aside = service.polled_data.kept(job, functools.partial(polled_value, job))
    if aside is None:
        return None
    note, link = aside
    linked: dict[str, Any] = {"content": [note, *carried_blocks(job), link], "isError": False}
    if "_meta" in (job.result or {}):
        linked["_meta"] = (job.result or {})["_meta"]
    return linked
