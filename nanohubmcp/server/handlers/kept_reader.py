"""Whom a ``resources/read`` of a large result the server kept (``nanohubmcp://results/...``) reads it as.

A kept result is its owner's (:mod:`..results.owners`: the principal, else the session that made it, else
whoever holds the link). What a job kept — its data linked by ``get_job_result``, ``tasks/result`` and the
2026 ``tasks/get``, a picture or file kept at its end — reads also to whoever may read that job by its id
(:meth:`~..jobs.service.JobStore.get`): with authorization only the job's principal, as before; without it,
once the session that started the job ended (a client reconnecting in a new session, a ``nanohubmcp bridge``
restart) or from the start for a job started outside a session, anyone holding the link, as anyone holding the
job's id reads the job. While the job's session lives, what it kept is that session's alone, and what a direct
call kept is its caller's alone always.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import UnknownComponent
from ..results.owners import owner_of

if TYPE_CHECKING:
    from ..wire.request import RequestContext
    from .host import KeptHost

__all__ = ["kept_reader"]


def kept_reader(core: KeptHost, request: RequestContext, uri: str) -> str | None:
    """The owner key :meth:`~..results.store.ResultStore.read` (and ``evicted``) of the kept result ``uri``
    is given for ``request``: the request's own (:func:`~..results.owners.owner_of`); or, for what a job
    kept, the job's owner's when the caller may read that job by its id. Reads the job's record when the
    caller is not the result's owner (a store read: SQLite, Redis)."""
    reader = owner_of(request)
    kept = core.result_store.kept_by(uri)
    if kept is None or kept.job is None or kept.owner in (None, reader):
        return reader
    session = request.session.id if request.session is not None else None
    service = core.job_service
    try:
        service.job_of(kept.job, session, request.principal)
    except UnknownComponent:  # not a job this caller may read (another principal's, a live session's)
        return reader
    return kept.owner
