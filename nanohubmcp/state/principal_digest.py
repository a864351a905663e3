"""What a shared store keeps of a principal: a keyed digest of its subject, never the subject.

A principal's subject (a nanoHUB user name, an e-mail address) names a person, and its bare SHA-256 is
reversed by guessing (hash the user names of a site and compare). So a shared store (Redis) keeps only
``HMAC-SHA-256(K, subject)``: in a session record (``principal_digest``) and in the keys that count a
principal's sessions and finished logs (``pr:``, ``pk:``, ``pb:<digest>``); in a job record
(``principal_digest``) and in the owner keys that index a principal's jobs and count its folder jobs' bytes
(``jobs:o:pd:<digest>``, ``fb:pd:<digest>``: :meth:`PrincipalDigest.owner_key`). ``K`` is derived, with its own
label, from the key that signs the stateless era's ``requestState``: the ``state_secret`` when one is
given, else the store's ``rs:key`` (made once by the first process), so every process sharing the store
computes the same digest and nothing more has to be shared. A request's principal is checked against a
record by comparing digests in constant time (:meth:`PrincipalDigest.matches`).

Changing that key (a new ``state_secret``; another ``rs:key``, made while the store had lost its own, which
every process then takes: :mod:`.redis_key_watch`) changes every digest: the sessions open then are answered
404 by the processes that did not open them (their clients initialize again) and the per-principal counts start
afresh.

This module owns the derivation and the comparison; what is stored where is the store's
(:mod:`.redis_state`) and the replication's (``server/wire/replication``).
"""

from __future__ import annotations

import hashlib
import hmac

PRINCIPAL_OWNER = "principal:"
"""The start of an owner key naming a principal by its subject (the job store's, the results')."""
DIGEST_OWNER = "pd:"
"""The start of an owner key naming a principal by its digest: what a shared store holds instead."""

LABEL = b"nanohubmcp principal digest v1"
"""What the digest key is derived with from the ``requestState`` key (so neither key reveals the other)."""


class PrincipalDigest:
    """The keyed digest of principals' subjects, the same in every process given the same key.

    Args:
        key: the ``requestState`` key (the ``state_secret`` given, or the store's ``rs:key``); a str is
            taken as its UTF-8 bytes.

    Example:
        ```python
        digest = PrincipalDigest(b"k" * 32)
        stored = digest("alice")            # 64 hex digits
        assert digest.matches(stored, "alice") and not digest.matches(stored, "bob")
        ```
    """

    __slots__ = ("_key",)

    def __init__(self, key: str | bytes) -> None:
        raw = key.encode("utf-8") if isinstance(key, str) else bytes(key)
        self._key = hmac.new(raw, LABEL, hashlib.sha256).digest()

    def __call__(self, subject: str) -> str:
        """The digest of ``subject``: 64 hex digits."""
        return hmac.new(self._key, subject.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()

    def of(self, subject: str | None) -> str | None:
        """The digest of ``subject``; None for None (no authorization)."""
        return None if subject is None else self(subject)

    def matches(self, stored: object, subject: str | None) -> bool:
        """Whether ``stored`` (a record's ``principal_digest``: a digest, or None for a session opened without
        authorization) is ``subject``'s, compared in constant time."""
        if subject is None or stored is None:
            return subject is None and stored is None
        return isinstance(stored, str) and hmac.compare_digest(stored.encode(), self(subject).encode())

    def owner_key(self, key: str) -> str:
        """The owner key a shared store holds for ``key``: ``"principal:<subject>"`` as ``"pd:<digest>"``; any
        other (a session's, ``"anonymous"``, one already a digest's) as it is."""
        if key.startswith(PRINCIPAL_OWNER):
            return DIGEST_OWNER + self(key[len(PRINCIPAL_OWNER):])
        return key
