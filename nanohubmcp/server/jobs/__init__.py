"""Jobs: long-running tool calls that answer at once and are polled later, and where their records live.

The store's bounds and kinds are named here, so the server's options can be checked without
importing the store (opened at the first job, or at start when one is left on disk).
"""

from __future__ import annotations

DEFAULT_MAX_JOBS = 10_000
DEFAULT_MAX_JOBS_PER_OWNER = 1_000
MOST_JOBS = 10**17
"""The largest bound on jobs (``max_jobs``, ``max_jobs_per_owner``): a larger one (``1e30``, taken as every count takes
a whole number) is this one, which no store reaches. SQLite's and Redis's integers are 64-bit (below 9.2 * 10**18),
and the provenance records' bound is ten times ``max_jobs``; passed on as it was, a larger bound failed every job call
("Python int too large to convert to SQLite INTEGER")."""
DEFAULT_MAX_RESULT_BYTES = 16 * 1024 * 1024
STORE_KINDS = ("sqlite", "memory")
DB_FILE = "jobs.sqlite3"
"""The SQLite job store's file, in the state directory."""
