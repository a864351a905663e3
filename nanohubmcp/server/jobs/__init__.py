"""Jobs: long-running tool calls that answer at once and are polled later, and where their records live.

The store's bounds and kinds are named here, so the server's options can be checked without
importing the store (opened at the first job, or at start when one is left on disk).
"""

from __future__ import annotations

DEFAULT_MAX_JOBS = 10_000
DEFAULT_MAX_JOBS_PER_OWNER = 1_000
DEFAULT_MAX_RESULT_BYTES = 16 * 1024 * 1024
STORE_KINDS = ("sqlite", "memory")
DB_FILE = "jobs.sqlite3"
"""The SQLite job store's file, in the state directory."""
