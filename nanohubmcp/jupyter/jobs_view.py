"""``%mcp jobs``: the server's jobs as a table — status, progress, age, executor.

Rows come from the job store (``JobStore.listing``): ``%mcp jobs`` lists the jobs this kernel's
servers ran, ``%mcp jobs --all`` those of every kernel with the same state directory (a kernel
restarted, or another notebook whose server has the same name). Never arguments or results: the
table is for the notebook's owner watching work, not a way around job ownership.
"""

from __future__ import annotations

import time
from collections.abc import Collection
from typing import Any, Protocol

__all__ = ["JobListing", "format_jobs", "jobs_report"]


class JobListing(Protocol):
    """What ``%mcp jobs`` reads of the server's job store (``JobStore``)."""

    @property
    def directory(self) -> str:
        """The state directory the store uses."""
        ...

    def listing(self, limit: int = 100, *, processes: Collection[str] | None = None) -> list[dict[str, Any]]:
        """The newest jobs (of the job stores of ``processes`` only, when given): table rows."""
        ...

    def count_elsewhere(self, processes: Collection[str]) -> int:
        """How many stored jobs job stores other than ``processes`` ran."""
        ...


def jobs_report(jobs: JobListing, mine: Collection[str], *, every: bool = False) -> str:
    """What ``%mcp jobs`` prints: the jobs run by the job stores of ``mine`` (the process tokens of
    this kernel's servers) and how many other kernels ran, or with ``every`` all of them."""
    if every:
        return format_jobs(jobs.listing())
    text = format_jobs(jobs.listing(processes=mine))
    others = jobs.count_elsewhere(mine)
    if others:
        text += (f"\n({others} more job{'s' if others != 1 else ''} of other kernels in {jobs.directory}, "
                 "e.g. of this notebook before a restart: %mcp jobs --all lists them)")
    return text


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
