"""How a provenance record names the session it was made in, when the call had no principal: its owner
(``session:`` and the session's key, as :func:`~nanohubmcp.server.results.owners.owner_for` names it) and
its ``session`` column (the key's first :data:`SESSION_DIGEST_CHARS` hex digits: the session id itself is
a credential and is never stored).

Made once per session and remembered for its later records (:func:`session_names`): a SHA-256 and its hex
text cost ~7k instructions, two a record before (bench/provenance.md, 2026-12-04). Used on the record
writer's thread only.
"""

from __future__ import annotations

from ..results.owners import SESSION_OWNER
from ..wire.sessions import session_key

MAX_SESSION_KEYS = 1024
"""Sessions whose names the writer remembers at most (then it forgets them all and starts again)."""
SESSION_DIGEST_CHARS = 12
"""Hex digits of a session's key that name it in its records' ``session`` column
(:func:`~nanohubmcp.server.wire.sessions.session_digest`)."""
_made: dict[str, tuple[str, str]] = {}


def session_names(session_id: str) -> tuple[str, str]:
    """``(owner, session column)`` of the records of session ``session_id`` made without a principal."""
    names = _made.get(session_id)
    if names is None:
        if len(_made) >= MAX_SESSION_KEYS:
            _made.clear()
        key = session_key(session_id)
        names = _made[session_id] = (SESSION_OWNER + key, key[:SESSION_DIGEST_CHARS])
    return names
