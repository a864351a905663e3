"""The table of provenance records that ``%mcp history`` and ``nanohubmcp provenance list`` print.

One row per record, newest first (by when its call ended, the order records are written in): its id,
tool, who called (``nanohubmcp provenance list`` only: :func:`caller_of`), status, when it started
(seconds ago in a notebook, the UTC time from a shell), how long it took, whether the result cache
answered it, the start of its code hash, and a failed record's error (its first line, cut). The rows
are the records as :meth:`.records.ProvenanceStore.recent` and :func:`.record_db.read_recent` give them.
"""

from __future__ import annotations

import time
from typing import Any, Literal

__all__ = ["CALLER_CHARS", "ERROR_CHARS", "caller_of", "format_records"]

ERROR_CHARS = 60
"""Characters of a failed record's error a row shows at most (``%mcp history ID`` shows all)."""
CALLER_CHARS = 20
"""Characters of a caller a row shows at most (``--caller`` takes the whole name)."""


def caller_of(row: dict[str, Any]) -> str:
    """Who made the record ``row``: its principal's subject (``alice``), else its session as
    ``session:`` and the digest the record holds (``session:3f2a9c01b7de``; the session id is never
    stored), else ``-`` (neither: a REST call, the stateless era without a token)."""
    if row.get("principal"):
        return str(row["principal"])
    if row.get("session"):
        return f"session:{row['session']}"
    return "-"


def format_records(
    rows: list[dict[str, Any]], *, clock: Literal["ago", "utc"] = "ago", now: float | None = None,
    caller: bool = False,
) -> str:
    """The table of ``rows`` (records, newest first): a header line and one line per record.

    ``clock``: when each started, as seconds before ``now`` (default: the current time) or as
    the UTC date and time (``2026-12-03 18:13:54``). ``caller``: a column of who called
    (:func:`caller_of`, cut to :data:`CALLER_CHARS`), after the tool's."""
    now = time.time() if now is None else now
    when = f"{'ago':>6}" if clock == "ago" else f"{'started (UTC)':<19}"
    who = f" {'caller':<{CALLER_CHARS}}" if caller else ""
    lines = [f"{'record':<26} {'tool':<20}{who} {'status':<10} {when} {'seconds':>8} {'cache':<5} {'code':<12} error"]
    for row in rows:
        started, ended = row.get("started"), row.get("ended")
        if not isinstance(started, (int, float)):
            at, took = (f"{'-':>6}" if clock == "ago" else f"{'-':<19}"), "-"
        else:
            utc = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(started))
            at = f"{now - started:>5.0f}s" if clock == "ago" else utc
            took = f"{ended - started:.3f}" if isinstance(ended, (int, float)) else "-"
        code = str((row.get("code") or {}).get("hash", ""))[7:19]
        who = f" {_cut(caller_of(row), CALLER_CHARS):<{CALLER_CHARS}}" if caller else ""
        line = (
            f"{row['id']:<26} {str(row.get('tool'))[:20]:<20}{who} {row.get('status') or '':<10} {at} {took:>8} "
            f"{row.get('cache') or '-':<5} {code:<12} {_error(row.get('error'))}"
        )
        lines.append(line.rstrip())
    return "\n".join(lines)


def _error(error: object) -> str:
    if not error:
        return ""
    first = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return _cut(first, ERROR_CHARS)


def _cut(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[: chars - 1] + "…"
