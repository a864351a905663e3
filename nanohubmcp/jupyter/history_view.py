"""``%mcp history``: the server's provenance records as a table, and one record in full.

Rows come from the record store (``ProvenanceStore.recent``), which the kernels of every notebook
whose server has the same name (and state directory) share: ``%mcp history`` lists the records made
in this kernel's process and counts the others below the table, as ``%mcp jobs`` does;
``%mcp history --all`` lists every one. The notebook's owner runs the server and reads its state
directory anyway; clients read only their own records (``resources/read``).
"""

from __future__ import annotations

import json
import os
import socket
from typing import Any

from ..server.provenance.listing import format_records

__all__ = ["HISTORY_ROWS", "format_history", "format_record", "history_report"]

HISTORY_ROWS = 50
"""Rows ``%mcp history`` lists (the newest)."""
SCANNED = 1000
"""Newest records read to find this kernel's and count the others (a count beyond reads "1000+")."""


def made_here(record: dict[str, Any], host: str | None = None, pid: int | None = None) -> bool:
    """Whether ``record`` was made in this process: the ``server`` that took the call (a job's ``where``
    names the process or node that ran it, which may be another), else its ``where`` (older records)."""
    where = record.get("server") or record.get("where") or {}
    return bool(where.get("pid") == (os.getpid() if pid is None else pid)
                and where.get("host") == (socket.gethostname() if host is None else host))


def history_report(rows: list[dict[str, Any]], directory: str, *, every: bool = False) -> str:
    """What ``%mcp history`` prints of ``rows`` (the newest records, newest first, up to
    :data:`SCANNED`): this process's newest :data:`HISTORY_ROWS` and how many others there are, or
    with ``every`` the newest of all."""
    if every:
        return format_history(rows[:HISTORY_ROWS])
    mine = [row for row in rows if made_here(row)]
    text = format_history(mine[:HISTORY_ROWS])
    others = len(rows) - len(mine)
    if others:
        count = f"{others}+" if len(rows) >= SCANNED else str(others)
        text += (f"\n({count} more record{'s' if others != 1 else ''} of other kernels in {directory}, "
                 "e.g. of this notebook before a restart: %mcp history --all lists them)")
    return text


def format_history(rows: list[dict[str, Any]], now: float | None = None) -> str:
    """The table ``%mcp history`` prints (newest first; :func:`.listing.format_records`, when each
    started as seconds ago), or a hint when there are no records."""
    if not rows:
        return "No calls recorded yet: every tool call and job leaves a record here (%mcp history ID shows one)."
    return format_records(rows, clock="ago", now=now)


def format_record(record: dict[str, Any] | None, record_id: str) -> str:
    """One record as indented JSON, or a message saying it is unknown or expired."""
    if record is None:
        return f"No record {record_id!r} (unknown, or expired with the job store's TTL)."
    return json.dumps(record, indent=1, default=str)  # the kept result in its own key order
