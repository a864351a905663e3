"""Making a provenance record's row from what a call handed over (:func:`build`, on the record store's
writer thread).

A record says, of a call: who made it (its principal, else its session: :mod:`.session_names`), the
arguments without the secret ones' values (the names its input schema marks ``format: password`` or
``writeOnly: true``), the result's digest and kept text and the URIs of its resource links
(:mod:`.result_text`), whether the result cache answered it, the request's ids and trace, and where it ran
(the executor and thread). What its tool's code and process share (the code's hash and version, the
package versions, host and process) is stored once per tool and process and referred to by key
(:mod:`.tool_facts`, :mod:`.code_facts`); the rest are the row's columns (:mod:`.rows`). What the call
hands over, and what :func:`build` gives back, is :mod:`.handover`'s; a job's record is completed when the
job ends (:mod:`.job_record`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..results.owners import owner_for
from .code_facts import CODE, TableWait, code_of
from .code_files import WATCHED
from .handover import CACHE_META, CANCELLED, NOT_ANSWERED, JobEnd
from .job_record import completed
from .record_arguments import record_arguments_text
from .result_fast import orjson_kept
from .result_text import error_of, kept_and_digest, one_text_block, resource_links
from .rows import SQLITE_INTEGERS, URI_PREFIX, CallRow, column_json, digest_text, stored_request_id
from .session_names import session_names
from .tool_facts import FACTS, known_facts, process_id

if TYPE_CHECKING:
    from .handover import Earlier, Made, PendingCall

_row = tuple.__new__
"""Makes a :class:`.rows.CallRow` of all its values (``_row(CallRow, values)``): half the cost of
the class's own constructor, a Python function with defaults."""


def build(item: PendingCall | JobEnd, earlier: Earlier, created: float, expires: float,
          waits: TableWait | None = None) -> Made | None:
    """The record of a call (or the completed record of a job), from what was handed over, as a
    row written at ``created`` that expires at ``expires``; ``waits``: whether the store's server waits for
    the installed distributions' table (:class:`.code_facts.TableWait`; None: it does)."""
    if isinstance(item, JobEnd):
        return completed(item, earlier, created, expires)
    (record_id, tool, principal, session, request_id, version, job_id,
     arguments, result, started, ended, (executor, thread), span, cached_from, ran) = item
    owner: str | None = None
    subject: str | None = None
    session_column: str | None = None
    if session is not None:
        owner, session_column = session_names(session.id)
    if principal is not None:
        owner = owner_for(principal, None)
        subject = str(principal.subject)
    options = tool.extra
    known = options.get(FACTS)  # (tool_facts.known_facts's answer, read here: a call fewer a record)
    # code_of's answer without its call when it is the one the facts were made of (a tool whose code is files
    # asks its version each time): code_of would give extra[CODE], and known_facts the same facts
    if known is None or known[1] != process_id() or WATCHED in options or options.get(CODE) is not known[0]:
        known = known_facts(tool, code_of(tool, ran, waits))
    facts = known[2]
    meta = result.pop("_meta", None)
    hit = False
    cache = None  # the cache column: None for a call the cache did not see
    if meta is not None:  # (a result's own _meta, or the cache's marks: most results have none)
        cached = meta.get(CACHE_META) if isinstance(meta, dict) else None
        if isinstance(cached, dict):
            hit = bool(cached.get("hit"))
            cache = _hit(cached_from) if hit else "miss"
    # a kept result's digest is the SHA-256 of its text, made when the record is read (rows.view)
    fast = orjson_kept(result)  # (with the fast extra; else, or a result orjson may write otherwise, None)
    if fast is not None:
        kept, digest, links = fast
    else:
        kept = one_text_block(result)
        if kept is None:
            kept, digest = kept_and_digest(result)
            links = resource_links(result)
        else:
            digest, links = None, []
    finished: float | None = ended
    trace_id = span_id = None
    if span is not None:
        ids = span.get_span_context()
        trace_id, span_id = format(ids.trace_id, "032x"), format(ids.span_id, "016x")
    status = "failed" if result.get("isError") else "completed"
    extra = None if status == "completed" else column_json({"error": error_of(result)})
    if meta is not None and isinstance(meta, dict) and meta.get(NOT_ANSWERED):  # no client got this result
        digest, kept, links = None, None, []
        if meta[NOT_ANSWERED] == CANCELLED:
            status = "cancelled"
    if job_id is not None and not hit:  # the job's record, open until the job ends
        extra = column_json({"job_id": job_id, "handle_digest": digest or digest_text(kept or "")})
        status, finished, digest, kept, links = "working", None, None, None, []
    row: CallRow = _row(CallRow, (
        record_id,
        owner,
        tool.name,
        facts[0],
        created,
        expires,
        subject,
        session_column,
        # (an int within SQLite's 64 bits, a string or None as it is: stored_request_id's call only for the rest)
        request_id if type(request_id) is not int or request_id in SQLITE_INTEGERS else stored_request_id(request_id),
        str(version),
        trace_id,
        span_id,
        started,
        finished,
        executor,
        thread.name,
        status,
        digest,
        kept,
        column_json(links) if links else None,
        cache,
        record_arguments_text(arguments, tool),
        extra,
        None,  # body: a first-schema record's
    ))
    return row, facts, known[3]


def _hit(cached_from: str | None) -> str:
    """The ``cache`` column of a hit: ``"hit"``, and the producing record's id when known (no
    column of its own: a record costs one bound value more per column, see :func:`.rows.view`)."""
    if cached_from and cached_from.startswith(URI_PREFIX):
        return "hit " + cached_from[len(URI_PREFIX):]
    return "hit"
