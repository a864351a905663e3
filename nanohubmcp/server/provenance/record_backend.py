"""The seam between the provenance store (:mod:`.records`) and where its records live: memory
(:mod:`.record_memory`) or SQLite (:mod:`.record_db`)."""

from __future__ import annotations

from typing import Any, Protocol

from .rows import CallRow

__all__ = ["RecordBackend"]


class RecordBackend(Protocol):
    """A place to keep records (memory or SQLite); safe from any thread."""

    def put_many(self, rows: list[CallRow], facts: dict[str, str], max_records: int) -> None:
        """Store (or replace) ``rows`` and the facts (key -> JSON text) they refer to."""

    def get_row(self, record_id: str) -> CallRow | None: ...

    def get(self, record_id: str) -> tuple[str | None, float, dict[str, Any]] | None:
        """``(owner, expires, record)`` of ``record_id``, expired or not."""

    def of_owner(self, owner: str | None, limit: int, now: float) -> list[dict[str, Any]]: ...

    def recent(self, limit: int, now: float) -> list[dict[str, Any]]: ...

    def put_source(self, digest: str, source: str) -> None: ...

    def get_source(self, digest: str) -> str | None: ...

    def purge(self, now: float, max_records: int, *, sweep: bool = False) -> int:
        """Delete expired records (``sweep``: wherever they are, else the oldest ones up to the
        first that has not expired) and the oldest beyond ``max_records``."""

    def trim_owner(self, owner: str | None, keep: int) -> int:
        """Delete the records of ``owner`` (an owner key, None: of no owner) but its newest ``keep``;
        returns how many went."""

    def purge_facts(self) -> int: ...

    def end_session(self, key: str, expires: float, max_records: int) -> None:
        """Note that the session of ``key`` (``session_key`` of its id) ended (see
        :meth:`ProvenanceStore.session_ended`)."""

    def session_ended(self, key: str) -> bool:
        """Whether :meth:`end_session` noted ``key`` (and its records have not expired)."""

    def close(self) -> None: ...
