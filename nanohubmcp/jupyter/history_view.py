"""``%mcp history``: the server's provenance records as a table, and one record in full.

Rows come from the record store (``ProvenanceStore.recent``), so calls of an earlier kernel with
the same state directory are listed too. The notebook's owner runs the server and reads its
state directory anyway; clients read only their own records (``resources/read``).
"""

from __future__ import annotations

import json
import time
from typing import Any

__all__ = ["format_history", "format_record"]


def format_history(rows: list[dict[str, Any]], now: float | None = None) -> str:
    """The table ``%mcp history`` prints (newest first), or a hint when there are no records."""
    if not rows:
        return "No calls recorded yet: every tool call and job leaves a record here (%mcp history ID shows one)."
    now = time.time() if now is None else now
    lines = [f"{'record':<26} {'tool':<20} {'status':<10} {'ago':>6} {'seconds':>8} {'cache':<5} code"]
    for row in rows:
        ended = row.get("ended")
        took = f"{ended - row['started']:.3f}" if isinstance(ended, (int, float)) else "-"
        code = str((row.get("code") or {}).get("hash", ""))[7:19]
        lines.append(
            f"{row['id']:<26} {row['tool'][:20]:<20} {row.get('status', ''):<10} "
            f"{now - row['started']:>5.0f}s {took:>8} {row.get('cache') or '-':<5} {code}"
        )
    return "\n".join(lines)


def format_record(record: dict[str, Any] | None, record_id: str) -> str:
    """One record as indented JSON, or a message saying it is unknown or expired."""
    if record is None:
        return f"No record {record_id!r} (unknown, or expired with the job store's TTL)."
    return json.dumps(record, indent=1, default=str)  # the kept result in its own key order
