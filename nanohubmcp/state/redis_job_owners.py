"""Whose a job is, as the Redis job store holds it: the keyed digest of its principal, never the subject.

A job record's ``principal`` (the subject of the caller that started it: a user name, an e-mail address) is
stored as ``principal_digest`` (:class:`~.principal_digest.PrincipalDigest`, the same digest the sessions' records
hold), and its ``owner_key`` (``"principal:<subject>"``) as ``"pd:<digest>"``, which names the owner's index
``jobs:o:pd:<digest>``; a job of no principal (a session's, an anonymous caller's) is stored as it was. A record
read back holds no ``principal``: whether it is a caller's is asked of :meth:`JobOwners.matches`. The digest's
key is the ``state_secret`` given, else the store's ``rs:key`` (read, or made, at the first job, and read again
every :data:`KEY_CHECK_SECONDS` while used, so a key the store lost and a process made again is followed): every
process sharing the store computes the same digest.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from .principal_digest import PRINCIPAL_OWNER, PrincipalDigest
from .redis_request_state import shared_key

KEY_CHECK_SECONDS = 2.0
"""How often (at most, when used) the store's ``rs:key`` is read again: a heartbeat's period."""


class JobOwners:
    """The stored form of jobs' principals in one Redis namespace.

    Args:
        client: a synchronous ``redis.Redis`` of the store (reads ``rs:key`` when no ``secret`` is given).
        key: builds a namespaced key from its parts.
        secret: the ``state_secret`` given, or None (the store's ``rs:key`` then).
        guard: the job store's outage guard (:class:`~.redis_jobs.Outage`): Redis away raises ``StateUnavailable``.
    """

    def __init__(self, client: Any, key: Callable[..., str], secret: str | bytes | None,
                 guard: Callable[[], Any]) -> None:
        self._client = client
        self._key = key
        self._secret = secret
        self._guard = guard
        self._digest: PrincipalDigest | None = None
        self._held: bytes | None = None
        """The store's key the digest is made with (as the client read it)."""
        self._checked = 0.0

    @property
    def digest(self) -> PrincipalDigest:
        """The keyed digest of subjects (its key read from the store at the first use without a ``secret``, and
        read again at a use :data:`KEY_CHECK_SECONDS` after: a key the store lost and another process made again
        is followed, as the sessions' is, :mod:`.redis_key_watch`; a key missing now is the one held)."""
        if self._secret is not None:
            self._digest = self._digest or PrincipalDigest(self._secret)
        elif self._digest is None or time.monotonic() >= self._checked + KEY_CHECK_SECONDS:
            with self._guard():
                key = (shared_key(self._client, self._key("rs", "key")) if self._digest is None
                       else self._client.get(self._key("rs", "key")))
            self._checked, key = time.monotonic(), key.encode() if isinstance(key, str) else key
            if key is not None and key != self._held:
                self._held, self._digest = key, PrincipalDigest(key)
        assert self._digest is not None
        return self._digest

    def record(self, record: dict[str, Any]) -> dict[str, Any]:
        """``record`` (a job's, as the job store makes it) as Redis holds it: a copy with ``principal`` replaced by
        ``principal_digest`` and the ``owner_key`` a digest's."""
        principal = record.get("principal")
        if principal is None:
            return record
        stored = {name: value for name, value in record.items() if name != "principal"}
        stored["principal_digest"] = self.digest(str(principal))
        stored["owner_key"] = self.owner_key(str(record["owner_key"]))
        return stored

    def owner_key(self, key: str) -> str:
        """The owner key Redis holds for ``key`` (:meth:`~.principal_digest.PrincipalDigest.owner_key`)."""
        return self.digest.owner_key(key) if key.startswith(PRINCIPAL_OWNER) else key

    def matches(self, stored: str, subject: str) -> bool:
        """Whether a record's ``principal_digest`` is ``subject``'s (compared in constant time)."""
        return self.digest.matches(stored, subject)
