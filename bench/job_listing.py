"""What one operator's listing of jobs costs (``%mcp jobs``, the lab panel's job feed) over a SQLite store of
finished jobs with large results.

    python bench/job_listing.py fill DIR [JOBS] [MB]   # JOBS finished jobs (200), each with an MB-MB result (5)
    python bench/job_listing.py list DIR [WHAT]        # one listing in this process: its time and memory

WHAT: ``report`` (``%mcp jobs``: this kernel's jobs and the count of the others', the default), ``all``
(``%mcp jobs --all``, the panel of a server outside a kernel), ``panel`` (the panel's ``jobs`` message of
a kernel session: the newest 50 of its processes). ``list`` prints one JSON line: the listing's wall
seconds, its peak Python allocations (tracemalloc, a second listing) and the process's peak RSS before
and after it. Run it with PYTHONPATH naming the tree to measure; ``farm-bench`` around it for the
whole process.

2026-12-04, 200 jobs of a 5 MB result (a 1 GB file), shared 2-core host held for the runs, two runs each:
``report`` 4.0-4.6 s, 2000 MB Python peak, RSS 26 -> 2028 MB before the listing read summaries; 1.1-1.2 s
and 27.5 MB RSS with summaries but no indexes (SQLite walked each row's result to reach ``created`` and
``runner``); 0.0013 s, 0.09 MB, 26 MB with ``jobs_by_created`` and ``jobs_by_runner``. ``all`` 1.1 s and
1028 MB -> 0.14 s and 27 MB; ``panel`` 2.3 s and 2028 MB -> 0.001 s and 26 MB.
"""

from __future__ import annotations

import json
import resource
import sys
import time
import tracemalloc
from collections.abc import Callable

from nanohubmcp.jupyter.jobs_view import jobs_report
from nanohubmcp.server.jobs import service as jobmod

NAME = "listing-bench"


def fill(directory: str, jobs: int, megabytes: int) -> None:
    store = jobmod.JobStore(name=NAME, state_dir=directory, max_jobs=jobs + 10, max_jobs_per_owner=jobs + 10)
    text = "r" * (megabytes << 20)
    for n in range(jobs):
        job = store.create("simulate", f"session-{n % 4}", arguments={"n": n})
        job.finish(jobmod.COMPLETED, result={"content": [{"type": "text", "text": text}]})
    store.backend.close()


def listing(directory: str, what: str) -> Callable[[], object]:
    store = jobmod.JobStore(name=NAME, state_dir=directory)
    store.open()
    kernel = {store.runs.process}  # (a fresh kernel: every stored job is another kernel's)
    if what == "all":
        return lambda: store.listing()
    if what == "panel":
        return lambda: store.listing(limit=50, processes=kernel)
    return lambda: jobs_report(store, kernel)


def measure(directory: str, what: str) -> None:
    look = listing(directory, what)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    look()
    seconds = time.perf_counter() - start
    rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    tracemalloc.start()
    look()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(json.dumps({"what": what, "seconds": round(seconds, 4), "python_peak_mb": round(peak / 2**20, 2),
                      "rss_before_mb": round(rss_before / 1024, 1), "rss_after_mb": round(rss_after / 1024, 1)}))


if __name__ == "__main__":
    if sys.argv[1] == "fill":
        fill(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 200, int(sys.argv[4]) if len(sys.argv) > 4 else 5)
    else:
        measure(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "report")
