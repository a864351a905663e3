"""A provenance record as stored, and the record readers see, made from it at read time.

A call's record is stored as one row of columns (:class:`CallRow`: ids, owner, times, where it
ran, the status, the result's digest, and three small JSON texts: the arguments, the kept
result, further keys) and a reference to the **facts** its tool and process share: the code's
hash, module, qualified name and version, the Python and package versions, the host and process
id (:func:`facts_of`, one JSON object per tool and process, stored once). No JSON of the whole
record is written per call; :func:`view` joins a row and its facts into the record's JSON object
(the fields of :mod:`.capture`) when someone reads it; the further keys (``extra``) override
columns of the same names (rows written between 45f43f6 and its revert kept most fields there).

The kept result is read both as a value (``result``, its keys in the result's order) and as the
exact text its digest hashes (``result_text``: ``sha256(result_text.encode())`` is
``result_digest``). The digest of a kept result is not stored: :func:`view` computes it from the
text (the same value; a record costs its call one SHA-256 less). A result too large to keep has
its digest stored.

A record of the first schema (one JSON text per record) is kept as it was in the row's ``body``
column (:func:`view` returns it parsed; it has no ``result_text``).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, NamedTuple

from ...protocol import compact_json
from ...protocol.lone_surrogates import utf8_storable
from ..jobs.record import PROVENANCE_URI_PREFIX

URI_PREFIX = PROVENANCE_URI_PREFIX
"""A record's URI is this and the record's id."""


SQLITE_INTEGERS = range(-(2**63), 2**63)
"""The integers a SQLite column holds as an integer (64 bits, signed)."""


def stored_request_id(value: Any) -> Any:
    """A JSON-RPC id as a row holds it: an int outside SQLite's 64-bit integers (a JSON-RPC id
    may be any integer; MCP ids up to 256 digits) as the bytes of its decimal text (a BLOB, told
    apart from a string id, a TEXT); anything else as it is. :func:`view` gives the int back."""
    if type(value) is int and value not in SQLITE_INTEGERS:
        return str(value).encode("ascii")
    return value


class CallRow(NamedTuple):
    """One stored record (the columns of the ``calls`` table, in order)."""

    id: str
    owner: str | None
    tool: str
    facts: str | None
    """The key of the facts (:func:`facts_of`) the record shares with its tool's other calls."""
    created: float
    """When the row was written (seconds since the epoch); the newest first in listings."""
    expires: float
    principal: str | None = None
    session: str | None = None
    request_id: Any = None
    """The JSON-RPC id (an int or a string), or None; as stored (:func:`stored_request_id`)."""
    protocol_version: str | None = None
    trace_id: str | None = None
    span_id: str | None = None
    started: float | None = None
    ended: float | None = None
    executor: str | None = None
    thread: str | None = None
    status: str | None = None
    result_digest: str | None = None
    """Stored only for a result too large to keep (else computed from ``result`` when read)."""
    result: str | None = None
    """The kept result as JSON text (see :func:`.result_text.digest_of`), or None."""
    resource_links: str | None = None
    """A JSON array of the result's resource link URIs, or None for none."""
    cache: str | None = None
    """``"miss"``, ``"hit"`` or ``"hit <id>"`` (a hit and the id of the record of the run that
    produced its result, read as ``cached_from``), None for a call the cache did not see."""
    arguments: str | None = None
    """The arguments as JSON text (a secret one's value replaced)."""
    extra: str | None = None
    """A JSON object of the record's further keys (a job's ``job_id``, ``error``, …; ``where``
    holds what the executor adds to where the call ran; a key overrides the column of its name),
    or None."""
    body: str | None = None
    """A first-schema record's whole JSON (then every other column but the ids and times is None)."""


COLUMNS = CallRow._fields
column_json = compact_json.compact_writer(str, allow_nan=True)
"""The compact JSON text of a row's small JSON columns (``resource_links``, ``extra``): a value JSON has
no form for as its ``str``."""
FACTS_KEY_CHARS = 32
"""Hex characters of the SHA-256 of a facts text that name it."""


def facts_of(code: dict[str, Any], host: str, pid: int) -> tuple[str, str]:
    """``(key, JSON text)`` of the facts a tool's records share in process ``pid`` on ``host``;
    ``code`` is what :func:`.code_facts.code_of` found."""
    facts = {
        "code": {
            "hash": code["hash"],
            "module": code["module"],
            "qualname": code["qualname"],
            "version": code["version"],
        },
        "python": {"version": code["python"], "implementation": code["implementation"]},
        "packages": code["packages"],
        "packages_complete": code["packages_complete"],
        "host": host,
        "pid": pid,
    }
    text = json.dumps(facts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:FACTS_KEY_CHARS], text


def storable(row: CallRow) -> CallRow:
    """``row`` with every text column as UTF-8 can hold it (:func:`~nanohubmcp.protocol.lone_surrogates.utf8_storable`:
    a lone surrogate a client sent, in a request id or echoed in a failed call's error, as its JSON
    escape), so that SQLite takes it; ``row`` itself when every column can be stored as it is."""
    values: list[Any] = [utf8_storable(value) if isinstance(value, str) else value for value in row]
    return row if all(a is b for a, b in zip(values, row, strict=True)) else CallRow(*values)


def digest_parts(parts: list[str]) -> str:
    """:func:`digest_text` of ``"".join(parts)``, hashed a megabyte at a time (no copy of the whole)."""
    digest = hashlib.sha256()
    step = 1 << 20
    for part in parts:
        for start in range(0, len(part), step):
            digest.update(part[start : start + step].encode())
    return "sha256:" + digest.hexdigest()


def digest_text(text: str) -> str:
    """``"sha256:"`` and the hex SHA-256 of ``text``'s UTF-8 form: a result's digest, of its text as the
    wire writes it (:func:`.result_text.result_text`)."""
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def view(row: CallRow, facts: dict[str, Any] | None) -> dict[str, Any]:
    """The record readers see (a new dict each time) of ``row`` and its parsed ``facts`` (None
    when they are missing: the fields they give read as None)."""
    if row.body is not None:
        record: dict[str, Any] = json.loads(row.body)
        return record
    facts = facts or {}
    code = facts.get("code") or {}
    python = facts.get("python") or {}
    where = {"host": facts.get("host"), "pid": facts.get("pid"), "thread": row.thread}
    record = {
        "id": row.id,
        "uri": URI_PREFIX + row.id,
        "tool": row.tool,
        "code": {key: code.get(key) for key in ("hash", "module", "qualname", "version")},
        "python": {"version": python.get("version"), "implementation": python.get("implementation")},
        "packages": dict(facts.get("packages") or {}),
        # False: looked up without the distributions table (code_facts.WAIT_SECONDS); None: written before it was said
        "packages_complete": facts.get("packages_complete"),
        "arguments": json.loads(row.arguments) if row.arguments is not None else {},
        "principal": row.principal,
        "session": row.session,
        "request_id": int(row.request_id) if isinstance(row.request_id, bytes) else row.request_id,
        "protocol_version": row.protocol_version,
        "trace_id": row.trace_id,
        "span_id": row.span_id,
        "started": row.started,
        "ended": row.ended,
        "executor": row.executor,
        "where": where,
        "server": {"host": facts.get("host"), "pid": facts.get("pid")},  # the process that took the call
        "status": row.status,
        "result_digest": row.result_digest if row.result is None or row.result_digest else digest_text(row.result),
        "result": json.loads(row.result) if row.result is not None else None,
        "result_text": row.result,
        "resource_links": json.loads(row.resource_links) if row.resource_links else [],
        "cache": row.cache,
        "cached_from": None,  # a hit's: the URI of the record of the run that produced the result
    }
    if row.cache is not None and row.cache.startswith("hit "):
        record["cache"], record["cached_from"] = "hit", URI_PREFIX + row.cache[4:]
    if row.extra:
        extra = json.loads(row.extra)
        where.update(extra.pop("where", None) or {})
        record.update(extra)
    return record


def parse_facts(text: str | None) -> dict[str, Any] | None:
    """The facts of a stored facts text (None for None or text that is not a JSON object)."""
    if text is None:
        return None
    try:
        facts = json.loads(text)
    except ValueError:
        return None
    return facts if isinstance(facts, dict) else None
