"""How many bytes of inputs one caller's waiting batch jobs keep in their folders: a per-caller budget.

A ``slurm`` or ``submit`` job's folder (:mod:`.job_files`) keeps the call's inputs whole (submitit's pickled
call, ``<slurm id>_submitted.pkl``; ``submit``'s ``submit.json``) until the job ends — hours in a batch queue —
while the job store keeps at most 64 KiB of a job's arguments. Without a bound, one caller's
``max_jobs_per_owner`` (1,000) queued jobs of ``max_request_bytes`` (16 MiB) each would be about 16 GB in
``job_dir``, often a home or project space with a quota that every user's jobs share.

:class:`FolderBudget` counts, per caller (the principal, else the session: the job store's ``owner_key``), the
bytes of the inputs of its folder jobs not ended yet, and refuses a new one past ``max_kept_bytes_per_owner``
(the same per-caller bound of bytes kept on the server's disk as the large results' store, 128 MiB by default)
with :class:`~nanohubmcp.errors.JobLimitReached` (``per_owner``): the caller's own share is full, as for
``max_jobs_per_owner`` — an ``isError`` result on every MCP route, HTTP 429 on REST; no job is made.

- A job is charged at submission the size of its arguments pickled (:func:`input_bytes`: what its folder
  keeps of them, a 4 MiB string in a 4.2 MB ``_submitted.pkl``), before anything is written or made.
- It is released once its end is stored (when its executor's ``RUN_FILES`` are removed: :mod:`.job_folders`).
- A job a restarted server takes back (:meth:`~.base.JobExecutor.reattach`) is charged what its folder's
  ``RUN_FILES`` hold now (:meth:`FolderBudget.recount`).

The count is this process's: processes sharing a state (``--workers N``, Redis) each count the jobs they started
or took back.
"""

from __future__ import annotations

import json
import pickle
import threading
from typing import Any

from ...errors import JobLimitReached

__all__ = ["FolderBudget", "input_bytes"]


def input_bytes(arguments: dict[str, Any]) -> int:
    """The size in bytes of ``arguments`` pickled (what a batch job's folder keeps of them: the arguments as the
    function gets them, a numpy array or a DataFrame included); arguments that cannot be pickled (the job will
    fail to be sent) are sized as compact JSON, each value JSON has no form for as its ``str``."""
    try:
        return len(pickle.dumps(arguments, protocol=pickle.HIGHEST_PROTOCOL))
    except Exception:  # (pickle raises what the objects' own __reduce__ raise: any type)
        text = json.dumps(arguments, default=str, ensure_ascii=False, separators=(",", ":"))
        return len(text.encode("utf-8", "surrogatepass"))


class FolderBudget:
    """The bytes of inputs each caller's not-yet-ended folder jobs hold (see the module docstring).

    Args:
        limit: most bytes per caller (``max_kept_bytes_per_owner``).
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._held: dict[str, tuple[str, int]] = {}  # job id -> (owner key, bytes)

    def held(self, owner: str) -> int:
        """Bytes held now by the folder jobs of ``owner`` (an owner key)."""
        with self._lock:
            return sum(size for key, size in self._held.values() if key == owner)

    def take(self, owner: str, job_id: str, size: int) -> None:
        """Charge ``owner`` (an owner key) ``size`` bytes for the job ``job_id``.

        Raises:
            JobLimitReached: (``per_owner``) the owner's jobs would hold more than :attr:`limit` bytes; nothing
                is charged.
        """
        with self._lock:
            held = sum(bytes_ for key, bytes_ in self._held.values() if key == owner)
            if held + size > self.limit:
                raise JobLimitReached(refusal(self.limit, held, size), per_owner=True)
            self._held[job_id] = (owner, size)

    def recount(self, owner: str, job_id: str, size: int) -> None:
        """Charge ``owner`` ``size`` bytes for ``job_id``, a job taken back after a restart (never refused: it
        was accepted before)."""
        with self._lock:
            self._held[job_id] = (owner, size)

    def moved(self, old: str, new: str) -> None:
        """What ``old`` (a charge made before its job had an id) holds is ``new``'s (the job's id) from now on."""
        with self._lock:
            charge = self._held.pop(old, None)
            if charge is not None:
                self._held[new] = charge

    def release(self, job_id: str) -> None:
        """The job ``job_id`` ended (or was never made): its bytes count no more."""
        with self._lock:
            self._held.pop(job_id, None)


def refusal(limit: int, held: int, size: int) -> str:
    """The text refusing a job of ``size`` bytes of inputs to a caller whose waiting jobs hold ``held``."""
    return (f"Too many bytes of inputs in waiting batch jobs for one client: the server keeps at most {limit} "
            f"bytes of waiting jobs' inputs per caller (option max_kept_bytes_per_owner); your waiting jobs hold "
            f"{held} bytes and this call's arguments are {size} bytes. Wait for a job to end or pass large data "
            "by file/link.")
