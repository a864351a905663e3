"""What a provenance record says about a call, and making it from what the call handed over.

Per tool, once: what :mod:`.code_facts` finds (the hash of its code, its version, the versions of
the packages its module uses) and the names of the arguments its input schema marks secret
(``format: password`` or ``writeOnly: true``).
Per call: the arguments without the secret ones' values, the SHA-256 digest of the result (its
JSON as the wire writes it, without ``_meta``: :func:`digest_of`), the URIs of its resource
links, and where the call ran (host, process and thread, and an executor's own place: a Dask
worker, a Slurm job and node). The per-tool parts are stored once per tool and process, the
per-call parts as columns (:mod:`.rows`).

A call hands over only references (:data:`PendingCall`); :func:`build` makes the record's row
from them later, on the record store's writer thread. The result is copied (shallowly) when it is
handed over, so a layer outside that adds to it cannot change the record; a tool's arguments
and nested result values are not copied (nothing of ours changes them after the call; a job
that changes a list it was given while its record is made is recorded as it was then).
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..results.owners import SESSION_OWNER, owner_for
from ..wire.request import Slot
from ..wire.sessions import session_key
from .code_facts import code_of
from .rows import URI_PREFIX, CallRow, digest_parts, digest_text, facts_of, stored_request_id

if TYPE_CHECKING:
    from ...protocol.versions import ProtocolVersion
    from ..jobs.record import Job
    from ..registry.components import Tool
    from ..wire.principal import Principal
    from ..wire.sessions import Session

from ...protocol import jsonenc
from ...schema.kept_arguments import MAX_KEPT_ARGUMENTS_BYTES, arguments_text
from ...schema.secret import stored_arguments, stored_form


def _refuse(value: object) -> object:
    raise TypeError(f"{type(value).__name__} is not a plain JSON value")


_wire_text = jsonenc.compact_writer(_refuse, allow_nan=False)
"""What :func:`~nanohubmcp.protocol.jsonenc.dumps` writes for a value without pre-encoded data,
NaN or infinities (the same options: compact, ``ensure_ascii=False``, ``allow_nan=False``);
raises TypeError/ValueError for the rest."""
_json = jsonenc.compact_writer(str, allow_nan=True)
"""Compact JSON text of a record's small parts (a value JSON has no form for as its ``str``)."""
_arguments_chunks = jsonenc.compact_chunks(stored_form, allow_nan=True)


MAX_KEPT_RESULT_BYTES = 64 * 1024
"""A result up to this size (its digested JSON) is kept in its record (for the RO-Crate export);
a larger one is named by its digest and resource links only."""


def digest_of(result: dict[str, Any]) -> tuple[str, str | None]:
    """``(digest, JSON text kept or None)`` of a ``CallToolResult``.

    The digest is ``"sha256:"`` and the hex SHA-256 of the result without ``_meta`` written as
    the wire writes it (:func:`result_text`). The text is kept (returned) when its UTF-8 form is
    at most :data:`MAX_KEPT_RESULT_BYTES` long.

    Until 2026-12 the digest hashed the result with sorted keys and ASCII escapes (the data
    decoded and written again); records made then keep the digest they were given.
    """
    kept, digest = kept_and_digest({key: value for key, value in result.items() if key != "_meta"})
    return digest or digest_text(kept or ""), kept


def kept_and_digest(result: dict[str, Any]) -> tuple[str | None, str | None]:
    """``(text, None)`` of a result whose :func:`result_text` is short enough to keep
    (:func:`kept_size`: its digest is made when the record is read), else ``(None, digest)``, hashed
    from the text's parts: a large array's data is never copied into one string with the rest."""
    parts = result_parts(result)
    if len(parts) == 1:
        return (parts[0], None) if kept_size(parts[0]) else (None, digest_parts(parts))
    if sum(map(len, parts)) <= MAX_KEPT_RESULT_BYTES:
        text = "".join(parts)
        if kept_size(text):
            return text, None
    return None, digest_parts(parts)


def result_text(result: dict[str, Any]) -> str:
    """The JSON text of ``result`` (a ``CallToolResult`` without ``_meta``) that its digest hashes.

    As the wire writes it (:func:`~nanohubmcp.protocol.jsonenc.dumpb`): compact JSON, keys in
    the order the result holds them, text as UTF-8, NaN and infinities as ``null``; an array's or
    table's data kept as JSON text written as that text, which is what the encoder writes for
    its values — so a pre-encoded result and a plain one of the same values have one digest, and
    the data is never decoded and written again. A result the wire encoder refuses (a value JSON
    has no form for) is written with Python's ``json`` instead, such a value as its ``str`` (a result
    whose dict key JSON has no form for: the JSON string of its ``repr``).
    """
    return "".join(result_parts(result))


def result_parts(result: dict[str, Any]) -> list[str]:
    """:func:`result_text` as the parts it is made of (``jsonenc.dumps_parts``: pre-encoded data a part
    of its own)."""
    if not _pre_encoded(result.get("structuredContent")):
        try:  # the wire encoder's output when nothing needs its special cases (most results)
            text = _wire_text(result)
            if not text.isascii():
                text.encode()  # a lone surrogate has no UTF-8 form (UnicodeEncodeError): the wire escapes it
            return [text]
        except (TypeError, ValueError):  # pre-encoded data, NaN, a lone surrogate: the wire encoder itself
            pass
    try:
        parts = jsonenc.dumps_parts(result)
        for part in parts:
            if not part.isascii():
                part.encode()
        return parts
    except UnicodeEncodeError:  # a lone surrogate: written with \u escapes, as the wire does
        pass
    except (TypeError, ValueError):
        return [_python_text(result)]
    try:
        return [jsonenc.dumpb(result).decode()]
    except (TypeError, ValueError):
        return [_python_text(result)]


def _python_text(result: dict[str, Any]) -> str:
    """A result the wire encoder refuses (a middleware's value JSON has no form for: the client got the
    error -32603) written with Python's ``json``, such a value as its ``str``; one that even that refuses
    (a dict key JSON has no form for: a numpy integer) as the JSON string of its ``repr``."""
    try:
        return json.dumps(jsonenc.plain(result), separators=(",", ":"), default=str)
    except (TypeError, ValueError):
        return json.dumps(repr(result))


def _pre_encoded(structured: object) -> bool:
    """An array's or a table's ``structuredContent`` (its data's JSON text, ``jsonenc.Encoded``): the plain
    writer would refuse it only after writing the content before it, the data's text block (24 MB for a
    300,000-row table, escaped whole and dropped) — the parts are asked for at once."""
    return isinstance(structured, dict) and structured.get("result").__class__ is jsonenc.Encoded


_TEXT_RESULT_KEYS = ("content", "isError")
_TEXT_BLOCK_KEYS = ("type", "text")
_string = json.encoder.encode_basestring
"""A string's JSON text as the wire's encoder writes it (quoted, escaped, not ASCII-escaped)."""


def one_text_block(result: dict[str, Any]) -> str | None:
    """:func:`result_text` of the commonest result, made without the encoder, or None for any other.

    That result is ``{"content": [{"type": "text", "text": T}], "isError": B}`` in that key order, of
    plain dicts, a list, an ASCII ``str`` (no surrogate to escape) and a ``bool`` (a tool returning a
    scalar or a string): its text is the encoder's for those values, byte for byte, and it names no
    resource links. The C encoder's call (its argument parsing, its accumulator, the chunks' join)
    costs ~11k instructions for this one block; the checks here and one string's escaping ~3k
    (bench/provenance.md, ninth pass)."""
    try:
        (block,) = result["content"]
        text = block["text"]
    except (KeyError, TypeError, ValueError):
        return None
    if (
        type(block) is dict
        and tuple(result) == _TEXT_RESULT_KEYS
        and tuple(block) == _TEXT_BLOCK_KEYS
        and type(result["content"]) is list
        and block["type"] == "text"
        and type(block["type"]) is str
        and type(text) is str
        and text.isascii()
        and len(text) < MAX_KEPT_RESULT_BYTES - 64
    ):
        failed = result["isError"]
        if failed is False:
            return '{"content":[{"type":"text","text":' + _string(text) + '}],"isError":false}'
        if failed is True:
            return '{"content":[{"type":"text","text":' + _string(text) + '}],"isError":true}'
    return None


def kept_size(text: str) -> bool:
    """Whether a result's text is short enough to be kept in its record (:data:`MAX_KEPT_RESULT_BYTES`)."""
    return len(text) <= MAX_KEPT_RESULT_BYTES if text.isascii() else len(text.encode()) <= MAX_KEPT_RESULT_BYTES


def resource_links(result: dict[str, Any]) -> list[str]:
    """The URIs of the ``resource_link`` blocks (and embedded resources) of a result."""
    links = []
    for block in result.get("content") or ():
        if isinstance(block, dict):
            if block.get("type") == "resource_link" and isinstance(block.get("uri"), str):
                links.append(block["uri"])
            elif block.get("type") == "resource" and isinstance(block.get("resource"), dict):
                uri = block["resource"].get("uri")
                if isinstance(uri, str):
                    links.append(uri)
    return links


HOST = socket.gethostname()
_pid = os.getpid()
"""This process's id (a system call per record cost more than the rest of the look-up): set again in a
forked child."""


def _forked() -> None:
    global _pid
    _pid = os.getpid()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)


def here() -> dict[str, Any]:
    """Where this process runs: host, pid and thread."""
    return {"host": HOST, "pid": os.getpid(), "thread": threading.current_thread().name}


# -- making a record from what a call handed over ------------------------------------------------
PendingCall = tuple[
    str, "Tool", "Principal | None", "Session | None", "str | int | None", "ProtocolVersion",
    "str | None", Any, dict[str, Any], float, float, "tuple[str, threading.Thread]", Any, "str | None",
    "str | None",
]
"""What a call hands over for its record (references only): ``(record_id, tool, principal,
session, request_id, version, job_id, arguments, result, started, ended, ran_on, span,
cached_from, ran)`` — the
request context's fields of those names (the record's owner is made from the principal and
session here: :func:`~nanohubmcp.server.results.owners.owner_for`), not the context (what it
holds would live until the record is made), the arguments as received, the result a shallow
copy of the answer without the record's own ``_meta`` key, ``ran_on`` the executor and thread
the function ran on (:data:`~nanohubmcp.server.calls.progress.RAN_ON`; else the event loop and the
thread that served the call), ``span`` the request's server span when the server traces it (else None), ``cached_from``
what :data:`CACHED_FROM` holds (a cache hit's producing record), else None, ``ran`` the code hash the
call ran with for a tool whose code is files (:data:`.code_files.WATCHED`; they may be edited before
the record is made), else None."""
Earlier = Callable[[str], "CallRow | None"]
"""Finds a record made earlier (in the same batch or stored), or None."""
Facts = tuple[str, str]
"""``(key, JSON text)`` of the facts a record refers to (:func:`.rows.facts_of`)."""
Made = tuple[CallRow, "Facts | None", "tuple[str, str] | None"]
"""``(row, the facts it refers to, (code hash, source) to keep)``."""
SLURM_META = "org.nanohub/slurm"
"""The task metadata key where the Slurm executor says where a job is (``job_id``, ``node``...)."""
CACHE_META = "io.nanohub/cache"
"""The ``_meta`` key of a result the result cache answered or stored: ``{"hit": bool, ...}``."""
CACHED_FROM: Slot[str] = Slot("cached from")
"""The URI of the provenance record of the run whose stored result the cache answered this call
with (set by the cache layer on a hit; the hit's record names it as ``cached_from``)."""
FACTS = "provenance_facts"
"""``Tool.extra`` key: ``(code_of's answer, pid, facts)`` (made again after a fork or a change)."""


class JobEnd:
    """A job's end, handed over for its record (:func:`build` completes the job's record, or makes it
    from what the job store kept of the job when it is missing: :func:`_made_from_job`)."""

    __slots__ = ("arguments", "executor", "executor_ref", "finished_at", "job_id", "message", "owner", "principal",
                 "record_id", "result", "started", "status", "task", "tool", "where")

    def __init__(self, record_id: str, job: Job) -> None:
        self.record_id = record_id
        self.job_id = job.id
        self.tool = job.tool
        self.owner = job.owner
        self.principal = job.principal
        self.arguments = job.arguments
        self.started = job.created
        self.status = job.status
        self.finished_at = job.finished_at
        self.executor = job.executor
        self.executor_ref = job.executor_ref
        self.where = dict(job.where or {})
        self.task = job.task_meta() or {}
        self.result = job.result
        self.message = job.status_message




def facts_for(tool: Tool, code: dict[str, Any]) -> Facts:
    """The facts of ``tool``'s records in this process (made once per tool, process and change of
    what :func:`.code_facts.code_of` found)."""
    known = tool.extra.get(FACTS)
    pid = _pid
    if known is None or known[0] is not code or known[1] != pid:
        known = (code, pid, facts_of(code, HOST, pid))
        tool.extra[FACTS] = known
    facts: Facts = known[2]
    return facts


MAX_SESSION_KEYS = 1024
"""Sessions whose names the writer remembers at most (then it forgets them all and starts again)."""
_session_names_made: dict[str, tuple[str, str]] = {}
SESSION_DIGEST_CHARS = 12
"""Hex digits of a session's key that name it in its records' ``session`` column
(:func:`~nanohubmcp.server.wire.sessions.session_digest`)."""


def _session_names(session_id: str) -> tuple[str, str]:
    """``(owner, session column)`` of the records of session ``session_id`` without a principal: ``session:``
    and its key (:func:`~nanohubmcp.server.wire.sessions.session_key`, as
    :func:`~nanohubmcp.server.results.owners.owner_for` names it), and the key's first
    :data:`SESSION_DIGEST_CHARS` hex digits (the id is a credential). Made once per session and remembered
    for its later records: a SHA-256 and its hex text cost ~7k instructions, two a record before
    (bench/provenance.md, 2026-12-04)."""
    names = _session_names_made.get(session_id)
    if names is None:
        if len(_session_names_made) >= MAX_SESSION_KEYS:
            _session_names_made.clear()
        key = session_key(session_id)
        names = _session_names_made[session_id] = (SESSION_OWNER + key, key[:SESSION_DIGEST_CHARS])
    return names


_row = tuple.__new__
"""Makes a :class:`.rows.CallRow` of all its values (``_row(CallRow, values)``): half the cost of
the class's own constructor, a Python function with defaults."""


def build(item: PendingCall | JobEnd, earlier: Earlier, created: float, expires: float) -> Made | None:
    """The record of a call (or the completed record of a job), from what was handed over, as a
    row written at ``created`` that expires at ``expires``."""
    if isinstance(item, JobEnd):
        return _job_end(item, earlier, created, expires)
    (record_id, tool, principal, session, request_id, version, job_id,
     arguments, result, started, ended, (executor, thread), span, cached_from, ran) = item
    owner: str | None = None
    subject: str | None = None
    session_column: str | None = None
    if session is not None:
        owner, session_column = _session_names(session.id)
    if principal is not None:
        owner = owner_for(principal, None)
        subject = str(principal.subject)
    code = code_of(tool, ran)
    facts = facts_for(tool, code)
    meta = result.pop("_meta", None)
    cached = meta.get(CACHE_META) if isinstance(meta, dict) else None
    hit = isinstance(cached, dict) and bool(cached.get("hit"))
    # a kept result's digest is the SHA-256 of its text, made when the record is read (rows.view)
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
    extra = None if status == "completed" else _json({"error": _error_of(result)})
    if job_id is not None and not hit:  # the job's record, open until the job ends
        extra = _json({"job_id": job_id, "handle_digest": digest or digest_text(kept or "")})
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
        stored_request_id(request_id),
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
        _json(links) if links else None,
        (_hit(cached_from) if hit else "miss") if isinstance(cached, dict) else None,
        _plain_arguments_text(arguments) if tool.secrets is None else _arguments_text_of(arguments, tool),
        extra,
        None,  # body: a first-schema record's
    ))
    source = code["source"]
    return row, facts, (code["hash"], source) if source is not None else None


def _plain_arguments_text(arguments: Any) -> str:
    """:func:`arguments_text` of a tool's arguments when its schema marks nothing secret: the encoder's text
    itself when it is ASCII and short enough to keep (most calls), else :func:`arguments_text`'s way. Three
    Python calls fewer a record than that way (bench/provenance.md, tenth pass)."""
    if type(arguments) is dict:
        text = "".join(_arguments_chunks(arguments, 0))
        if text.isascii() and len(text) <= MAX_KEPT_ARGUMENTS_BYTES:
            return text
        return arguments_text(arguments)
    return "{}"


def _arguments_text_of(arguments: Any, tool: Tool) -> str:
    return arguments_text(stored_arguments(arguments if isinstance(arguments, dict) else {}, tool.secrets))


ERROR_CHARS = 2000
"""How much of a failed call's error text (or of the message a job ended with) its record keeps (the
whole result is kept apart)."""


def _error_of(result: dict[str, Any]) -> str:
    """A failed call's error: the text of its result's first text block, cut to :data:`ERROR_CHARS`."""
    for block in result.get("content") or ():
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            return _cut(block["text"])
    return "the tool answered an error result"


def _cut(text: str) -> str:
    """``text`` cut to :data:`ERROR_CHARS` (and ``…``) when longer."""
    return text if len(text) <= ERROR_CHARS else text[:ERROR_CHARS] + "…"


def _hit(cached_from: str | None) -> str:
    """The ``cache`` column of a hit: ``"hit"``, and the producing record's id when known (no
    column of its own: a record costs one bound value more per column, see :func:`.rows.view`)."""
    if cached_from and cached_from.startswith(URI_PREFIX):
        return "hit " + cached_from[len(URI_PREFIX):]
    return "hit"


def _job_end(end: JobEnd, earlier: Earlier, created: float, expires: float) -> Made | None:
    row = earlier(end.record_id)
    if row is not None and row.body is not None:
        return None  # a record of the first schema: kept as it was
    if row is None:  # never written (a kill -9 before the writer wrote it), or expired while the job ran
        row = _made_from_job(end)
    extra = json.loads(row.extra) if row.extra else {}
    where = dict(extra.get("where") or {})
    where.update(end.where)
    slurm = end.task.get(SLURM_META) if isinstance(end.task.get(SLURM_META), dict) else None
    if slurm is not None:
        where.update(slurm_job_id=slurm.get("job_id"), node=slurm.get("node"))
    if where:
        extra["where"] = where
    extra["error"] = _cut(str(end.message)) if end.status != "completed" and end.message is not None else None
    if end.executor_ref:
        extra["executor_ref"] = end.executor_ref
    if end.result is not None:
        kept, digest = kept_and_digest({key: value for key, value in end.result.items() if key != "_meta"})
    else:
        digest = kept = None
    links = resource_links(end.result or {})
    for key in ("status", "executor", "resource_links"):  # the columns are the record's (rows.view: extra wins)
        extra.pop(key, None)
    done = row._replace(
        created=created,
        expires=expires,
        status=end.status,
        ended=end.finished_at or time.time(),
        executor=end.executor,
        result_digest=digest,
        result=kept,
        resource_links=_json(links) if links else None,
        extra=_json(extra),
    )
    return done, None, None


def _made_from_job(end: JobEnd) -> CallRow:
    """The started record of a job whose own record is missing when the job ends, made from what the
    job store kept of the job (its tool, owner, arguments with secrets already replaced, start).

    A server killed (``kill -9``) before its writer wrote the record of a call that started a job loses
    that record (the writer gathers records for up to a second, and the first record of a process waits
    for the table of installed packages), while the job lives on in the job store: a job its executor
    keeps running (Slurm, Dask) is taken back by the restarted server and its result delivered naming
    this record's URI; a job of the killed process fails "the server stopped while this job ran". A
    record also expires while a job runs longer than the job store's TTL. What only the call knew (the
    code's hash and version, the Python and package versions, the request's id, protocol version and
    trace) is not known: those fields read as null, and ``made_from_job`` (true) says why."""
    owner = f"principal:{end.principal}" if end.principal is not None else (
        SESSION_OWNER + end.owner if end.owner is not None else None)
    return CallRow(
        end.record_id,
        owner,
        end.tool,
        None,
        end.started,
        end.started,
        end.principal,
        end.owner[:12] if end.owner is not None else None,  # the session's digest (rows name no session id)
        started=end.started,
        arguments=arguments_text(end.arguments if isinstance(end.arguments, dict) else {}),
        extra=_json({"job_id": end.job_id, "made_from_job": True}),
    )
