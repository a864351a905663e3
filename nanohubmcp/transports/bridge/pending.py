"""The client's requests the bridge sent on that the server has not answered yet, and which of them were cancelled
on the server: what the bridge's end (:mod:`.ending`) waits for, cancels, or answers itself.

Owns :class:`Unanswered`. Not this module's: sending a request or its cancel (:mod:`.session`), when the bridge
ends (:mod:`.stdio`, :mod:`.ending`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterable
from typing import Any

__all__ = ["Unanswered", "plain_id"]

log = logging.getLogger("nanohubmcp.bridge")


def plain_id(request_id: object) -> bool:
    """Whether ``request_id`` is a JSON-RPC id the bridge keeps track of (a string or a number, not a bool)."""
    return isinstance(request_id, (str, int, float)) and not isinstance(request_id, bool)


class Unanswered:
    """The client's requests sent on and not answered yet (by id, with their method), the ones among them cancelled
    on the server or answered by the bridge at its stop (:meth:`withdraw`: no answer is awaited, the response stream
    the server ends without one is not resumed, and an answer the server sends all the same is not relayed:
    :meth:`superseded`), and an event set whenever one is answered or withdrawn (:attr:`progressed`; the session
    sets it too as a message's forwarding ends)."""

    def __init__(self) -> None:
        self.methods: dict[Any, str] = {}
        self.withdrawn: set[Any] = set()
        self.posted_at: dict[Any, float] = {}  # when each was last sent to the server (the loop's clock)
        self.progressed = asyncio.Event()

    def sent(self, message: dict[str, Any]) -> None:
        """The client's ``message`` is being sent on (a request is then awaited; a batch is not tracked)."""
        request_id = message.get("id")
        if "method" in message and plain_id(request_id):
            self.methods[request_id] = str(message["method"])
            self.withdrawn.discard(request_id)  # (an id used again)
            self.posted_at.pop(request_id, None)

    def posted(self, request_id: object) -> None:
        """The request ``request_id`` is being sent to the server now (again, when its session was renewed)."""
        if plain_id(request_id) and request_id in self.methods:
            self.posted_at[request_id] = asyncio.get_running_loop().time()
            self.progressed.set()

    def answered(self, message: object) -> None:
        """``message`` went to the client: a response answers its request."""
        if (isinstance(message, dict) and "method" not in message and plain_id(message.get("id"))
                and self.methods.pop(message["id"], None) is not None):
            self.posted_at.pop(message["id"], None)
            self.progressed.set()

    def withdraw(self, request_id: object) -> bool:
        """Mark ``request_id`` cancelled on the server (or answered by the bridge); False when it is no request
        awaited (any more)."""
        if not plain_id(request_id) or request_id not in self.methods or request_id in self.withdrawn:
            return False
        self.withdrawn.add(request_id)
        self.progressed.set()  # (no longer awaited: the end of input may be settled now)
        return True

    def is_withdrawn(self, request_id: object) -> bool:
        return plain_id(request_id) and request_id in self.withdrawn

    def superseded(self, message: object) -> bool:
        """Whether ``message`` is a response to a request withdrawn (:meth:`withdraw`): the client awaits no answer
        to it, or already has the bridge's, so it must not get one more (JSON-RPC 2.0 § 5: one response per
        request). A server's answer may cross its request's cancel, or come on its SSE stream after the bridge's
        stop answered it. The drop is said at debug level."""
        if not (isinstance(message, dict) and "method" not in message and self.is_withdrawn(message.get("id"))):
            return False
        log.debug("dropped the server's answer to request %s: it was withdrawn", json.dumps(message["id"])[:100])
        return True

    def forwarded(self, request_id: object, *, answered_later: bool) -> None:
        """The forwarding of ``request_id`` ended: unless its answer may come ``answered_later`` (a legacy server's,
        on its SSE stream) and it was not cancelled on the server, it is no longer awaited (its id may be used
        again)."""
        if plain_id(request_id) and (request_id in self.withdrawn or not answered_later):
            self.withdrawn.discard(request_id)
            self.methods.pop(request_id, None)
            self.posted_at.pop(request_id, None)

    def settled(self, forwarding: Iterable[Any]) -> bool:
        """Whether nothing the client sent waits for the server: of the messages being forwarded (``forwarding``:
        their requests' ids, None for no request) none but requests withdrawn (whose function may run on, the
        server keeping their POST's stream open), and every request not withdrawn answered (a legacy server's
        answers come on its SSE stream)."""
        return all(self.is_withdrawn(request_id) for request_id in forwarding) and not self.awaited()

    def awaited(self) -> list[Any]:
        """The ids of the requests whose answers are still awaited (not cancelled on the server)."""
        return [request_id for request_id in self.methods if request_id not in self.withdrawn]

    def overdue(self, now: float, after: float) -> tuple[list[Any], float | None]:
        """The ids of the requests but ``initialize`` (which MUST NOT be cancelled) whose answers are still awaited
        ``after`` seconds or more since they were sent (``now``, on the loop's clock), and in how many seconds the
        next of the others sent comes to that (None: none)."""
        due, waits = [], []
        for request_id in self.awaited():
            posted = self.posted_at.get(request_id)
            if self.methods[request_id] == "initialize" or posted is None:
                continue
            if now - posted >= after:
                due.append(request_id)
            else:
                waits.append(posted + after - now)
        return due, min(waits, default=None)
