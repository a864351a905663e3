"""``%mcp jobs``: the server's jobs as a table — status, progress, age, executor.

Rows come from the job store (``JobStore.listing``): ``%mcp jobs`` lists the jobs this kernel's
servers ran, ``%mcp jobs --all`` those of every kernel with the same state directory (a kernel
restarted, or another notebook whose server has the same name). Never arguments or results: the
table is for the notebook's owner watching work, not a way around job ownership.
"""

from __future__ import annotations

import time
from typing import Any

__all__ = ["format_jobs"]


def _age(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f}s"
    if seconds < 3600:
        return f"{seconds / 60:.0f}m"
    if seconds < 86400:
        return f"{seconds / 3600:.1f}h"
    return f"{seconds / 86400:.1f}d"


def _progress(row: dict[str, Any]) -> str:
    done, total, message = row.get("progress"), row.get("progress_total"), row.get("progress_message")
    if done is None:
        return "-"
    text = f"{done:g}/{total:g} ({100.0 * done / total:.0f}%)" if total else f"{done:g}"
    return f"{text} {message}" if message else text


def format_jobs(rows: list[dict[str, Any]], now: float | None = None) -> str:
    """The table ``%mcp jobs`` prints (newest first), or a hint when there are no jobs."""
    if not rows:
        return "No jobs yet: calls of --async tools (%%mcp_tool --async) are listed here."
    now = time.time() if now is None else now
    lines = [f"{'job':<10} {'tool':<20} {'status':<14} {'age':>5} {'executor':<10} progress"]
    for row in rows:
        lines.append(f"{row['id'][:8]:<10} {row['tool'][:20]:<20} {row['status']:<14} {_age(now - row['created']):>5} "
                     f"{(row.get('executor') or 'threads'):<10} {_progress(row)}".rstrip())
        if row["status"] == "failed" and row.get("status_message"):
            lines.append(f"{'':<10} {row['status_message'][:100]}")
    return "\n".join(lines)
