"""Who owns what a request makes (large results kept as resources, provenance records, jobs): its
principal, else its session (by the session's key, never its id), else nobody; and who kept a result
(:class:`KeptBy`: its owner, and the job whose result it is, whose readers read it too).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..wire.sessions import Session, session_key

__all__ = ["PRINCIPAL_OWNER", "SESSION_OWNER", "KeptBy", "owner_for", "owner_of"]


def owner_of(request: object) -> str | None:
    """Who owns what ``request`` makes: its principal, else its session, else nobody."""
    return owner_for(getattr(request, "principal", None), getattr(request, "session", None))


SESSION_OWNER = "session:"
"""The start of the owner key of what a session made without a principal (the session's key follows:
:func:`~nanohubmcp.server.wire.sessions.session_key`, never its id)."""


PRINCIPAL_OWNER = "principal:"
"""The start of the owner key of what an authenticated caller made (its principal's subject follows)."""


def owner_for(principal: Any, session: Any) -> str | None:
    """The owner key of a request's ``principal`` and ``session`` (see :func:`owner_of`); a session
    is named by its key (the SHA-256 of its id), so a stored record never holds the id: a
    :class:`~nanohubmcp.server.wire.sessions.Session`'s kept :attr:`~.Session.key` (a SHA-256 and its hex
    text, ~3.5k instructions, once per session instead of at every cache hit's look-up)."""
    if principal is not None:
        return f"{PRINCIPAL_OWNER}{principal.subject}"
    if session is None:
        return None
    return SESSION_OWNER + (session.key if type(session) is Session else session_key(session.id))


class KeptBy(NamedTuple):
    """Who kept a large result: ``owner``, its owner key (None: whoever holds the link), and ``job``, the id of
    the job whose result it is (its data, or a picture or file kept at its end), else None (a call's own)."""

    owner: str | None
    job: str | None = None
