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

With a shared state store (``state_url="redis://…"``) the count is every process's: the charges live in Redis
(:mod:`nanohubmcp.state.redis_folder_charges`: one field per job under the caller, a lease of five minutes renewed
every minute by the process holding the job, so a process that died holds no budget past its lease; the server
taking its jobs back charges them again). Otherwise (memory, SQLite, ``--workers N`` without Redis) it is this
process's: processes sharing a state directory each count the jobs they started or took back.

.. versionchanged:: 1.0
   Counted across the processes sharing a Redis state store.
"""

from __future__ import annotations

import contextlib
import json
import pickle
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from ...errors import JobLimitReached
from ...state.errors import StateUnavailable

if TYPE_CHECKING:
    from ...state import StateURL

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


class SharedCharges(Protocol):
    """Where the charges of every process of a server are counted (:class:`~nanohubmcp.state.redis_folder_charges.
    RedisFolderCharges`)."""

    def take(self, owner: str, charge: str, size: int, limit: int, *, force: bool = False) -> int | None: ...
    def renew(self, charges: dict[str, list[str]]) -> None: ...
    def move(self, owner: str, old: str, new: str) -> None: ...
    def release(self, owner: str, charge: str) -> None: ...
    def held(self, owner: str) -> int: ...


def shared_charges(state_url: StateURL, name: str,
                   secret: str | bytes | None = None) -> Callable[[], SharedCharges] | None:
    """What makes the shared charges of the server ``name`` at their first use, for a shared ``state_url`` (Redis);
    None for one that is not (the count stays this process's). ``secret``: the ``state_secret`` given, the key of the
    digest a principal's charges are kept under (None: the store's)."""
    if not state_url.shared:
        return None

    def make() -> SharedCharges:
        from ...state.redis_folder_charges import RedisFolderCharges

        return RedisFolderCharges(state_url, name, secret)

    return make


class FolderBudget:
    """The bytes of inputs each caller's not-yet-ended folder jobs hold (see the module docstring).

    Args:
        limit: most bytes per caller (``max_kept_bytes_per_owner``).
        shared: makes the charges every process of the server counts (Redis), at the first charge; None: this
            process's alone.
    """

    def __init__(self, limit: int, shared: Callable[[], SharedCharges] | None = None) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._held: dict[str, tuple[str, int]] = {}  # job id -> (owner key, bytes): this process's charges
        self._make_shared = shared
        self._shared: SharedCharges | None = None

    def _store(self) -> SharedCharges | None:
        if self._shared is None and self._make_shared is not None:
            self._shared = self._make_shared()
        return self._shared

    def held(self, owner: str) -> int:
        """Bytes held now by the folder jobs of ``owner`` (an owner key): every process's with a shared store."""
        shared = self._store()
        if shared is not None:
            return shared.held(owner)
        with self._lock:
            return sum(size for key, size in self._held.values() if key == owner)

    def take(self, owner: str, job_id: str, size: int) -> None:
        """Charge ``owner`` (an owner key) ``size`` bytes for the job ``job_id``.

        Raises:
            JobLimitReached: (``per_owner``) the owner's jobs would hold more than :attr:`limit` bytes; nothing
                is charged.
            StateUnavailable: the shared store (Redis) cannot be reached: nothing is charged (503).
        """
        shared = self._store()
        if shared is not None:
            refused = shared.take(owner, job_id, size, self.limit)
            if refused is not None:
                raise JobLimitReached(refusal(self.limit, refused, size), per_owner=True)
            with self._lock:
                self._held[job_id] = (owner, size)
            return
        with self._lock:
            held = sum(bytes_ for key, bytes_ in self._held.values() if key == owner)
            if held + size > self.limit:
                raise JobLimitReached(refusal(self.limit, held, size), per_owner=True)
            self._held[job_id] = (owner, size)

    def recount(self, owner: str, job_id: str, size: int) -> None:
        """Charge ``owner`` ``size`` bytes for ``job_id``, a job taken back after a restart (never refused: it
        was accepted before; with a shared store its charge is written again, never counted twice). The shared
        store unreachable: not charged there (the bound is looser by it until the job ends)."""
        with self._lock:
            self._held[job_id] = (owner, size)
        shared = self._store()
        if shared is not None:
            with contextlib.suppress(StateUnavailable):
                shared.take(owner, job_id, size, self.limit, force=True)

    def moved(self, old: str, new: str) -> None:
        """What ``old`` (a charge made before its job had an id) holds is ``new``'s (the job's id) from now on."""
        with self._lock:
            charge = self._held.pop(old, None)
            if charge is not None:
                self._held[new] = charge
        shared = self._store()
        if charge is not None and shared is not None:
            shared.move(charge[0], old, new)

    def release(self, job_id: str, owner: str | None = None) -> None:
        """The job ``job_id`` ended (or was never made): its bytes count no more. ``owner``: its owner key (a job
        charged by another process is released in the shared store by it)."""
        with self._lock:
            charge = self._held.pop(job_id, None)
        owner = owner if owner is not None else charge[0] if charge is not None else None
        shared = self._store() if owner is not None else None
        if shared is not None and owner is not None:
            shared.release(owner, job_id)

    def renew(self) -> None:
        """Renew the leases of this process's charges in the shared store (the server's sweep, every minute)."""
        shared = self._shared  # (none made: nothing charged)
        if shared is None:
            return
        by_owner: dict[str, list[str]] = {}
        with self._lock:
            for job_id, (owner, _) in self._held.items():
                by_owner.setdefault(owner, []).append(job_id)
        if by_owner:
            shared.renew(by_owner)


def refusal(limit: int, held: int, size: int) -> str:
    """The text refusing a job of ``size`` bytes of inputs to a caller whose waiting jobs hold ``held``."""
    return (f"Too many bytes of inputs in waiting batch jobs for one client: the server keeps at most {limit} "
            f"bytes of waiting jobs' inputs per caller (option max_kept_bytes_per_owner); your waiting jobs hold "
            f"{held} bytes and this call's arguments are {size} bytes. Wait for a job to end or pass large data "
            "by file/link.")
