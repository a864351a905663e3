"""Redis error replies that mean "the store cannot take a write now", answered as an unavailable store.

A Redis at its ``maxmemory`` under ``maxmemory-policy noeviction`` answers every write ``OOM command not allowed
when used memory > 'maxmemory'``; a replica ``READONLY``; a Redis whose last background save failed ``MISCONF``;
one still loading its data set ``LOADING``; one running a long script ``BUSY``; a replica cut off from its master
``MASTERDOWN``; a master short of the replicas it needs ``NOREPLICAS``. None of these is the request's fault, and
each passes once the store is tended. So the store's seams (:class:`~.redis_state.RedisState`'s guard, the job
store's :class:`~.redis_jobs.Outage`, the stateless era's nonces) raise :class:`~.errors.StateUnavailable` for
them, as for an unreachable Redis (503 with ``Retry-After``), naming the refusal, and :class:`Refusals` says it in
one WARNING when it begins and one when writes are taken again, however many requests meet it meanwhile.

``BUSY`` and ``MASTERDOWN`` (a replica with ``replica-serve-stale-data no``) refuse reads as well: a read meeting
one is answered alike. Each is provoked on a real redis-server by
``tests/scaleout/test_every_refusal_of_writes_redis_makes_is_503_naming_it.py`` (``LOADING`` is not: redis-py raises it
as a connection error, answered as an unreachable store).

Other error replies (a missing script, a value refused, a wrong type) are left as they are: they come again
whatever the store's state, and their callers handle them.
"""

from __future__ import annotations

import logging
import threading

from .errors import StateUnavailable

log = logging.getLogger("nanohubmcp.state")

REFUSALS = frozenset({"OOM", "READONLY", "MISCONF", "LOADING", "BUSY", "MASTERDOWN", "NOREPLICAS"})
"""The codes of the error replies that mean "the store cannot take a write now" (module docstring)."""
MAX_REASON = 200
"""A refusal's text is cut to this many characters in messages."""
_CODE_OF_CLASS = (("OutOfMemoryError", "OOM"), ("ReadOnlyError", "READONLY"), ("MasterDownError", "MASTERDOWN"))
"""redis-py's classes of refusals whose reply text it keeps without the code (before its ``status_code``)."""
_PIPELINE = " of pipeline caused error: "
"""What redis-py puts before the reply of a pipeline's failed command ("Command # 1 (SET ...) ...")."""


def refusal(exc: BaseException) -> str | None:
    """The refusal ``exc`` is, as ``"<code> <its first sentence>"`` (``"OOM command not allowed when used memory >
    'maxmemory'"``, without redis-py's pipeline annotation or a script's place), or None when ``exc`` is no such
    reply (a connection error, another error reply, any other exception)."""
    import redis.exceptions as errors

    if not isinstance(exc, errors.ResponseError):
        return None
    text = str(exc.args[0]) if exc.args else ""
    if text.startswith("Command # ") and _PIPELINE in text:
        text = text.split(_PIPELINE, 1)[1]
    code = getattr(exc, "status_code", None)
    if not code:
        code = next((code for name, code in _CODE_OF_CLASS if isinstance(exc, getattr(errors, name, ()))), None)
    if not code:  # an older redis-py: an unmapped reply keeps its code in its text
        code = text.split(" ", 1)[0]
    if code not in REFUSALS:
        return None
    if text == code or text.startswith(code + " "):
        text = text[len(code):].lstrip()
    sentence = text.split(". ", 1)[0].rstrip(".").strip()
    return f"{code} {sentence}"[:MAX_REASON].rstrip()


class Refusals:
    """Whether a store refuses writes now (:attr:`refusing`), said once per burst (module docstring); any thread.

    Args:
        what: the store as the warnings name it (``"shared state store redis://host:6379/0"``).
    """

    def __init__(self, what: str) -> None:
        self.what = what
        self.refusing: str | None = None
        """The last refusal (:func:`refusal`'s text) since writes were last taken; None while they are."""
        self._lock = threading.Lock()

    def refused(self, reason: str) -> StateUnavailable:
        """The store refused a write with ``reason``: the :class:`~.errors.StateUnavailable` to raise (503 with
        ``Retry-After``, naming it); the first refusal of a burst is logged."""
        with self._lock:
            first = self.refusing is None
            self.refusing = reason
        if first:
            log.warning("%s refuses writes (%s); answering 503 to what must write until it takes them again",
                        self.what, reason)
        return StateUnavailable(f"The server's shared state store refuses writes: {reason}; retry shortly")

    def wrote(self) -> bool:
        """A write was taken: the burst, if any, ends (logged once). True when one ended."""
        with self._lock:
            was, self.refusing = self.refusing, None
        if was is None:
            return False
        log.warning("%s takes writes again", self.what)
        return True
