"""A request's cancellation flag (:attr:`~.request.RequestContext.cancelled`): set when the client cancels the
request (``notifications/cancelled``) or the server stops, read by the tool's function through ``ctx``; it also
says whether the function may have seen it set (:attr:`CancelFlag.seen`).

Re-exported by :mod:`.request`, where it was defined.
"""

from __future__ import annotations

import threading

__all__ = ["CancelFlag"]


class CancelFlag:
    """A cancellation flag, cheap to create (a ``threading.Event`` only if someone waits).

    ``is_set()`` and ``set()`` behave like ``threading.Event``'s; ``wait(timeout)`` blocks a
    worker thread until the flag is set. :attr:`seen` tells whether the tool's function may have seen it
    set (:meth:`look`: ``ctx.is_cancelled()`` answered True, a ``ctx.on_cancel`` callback ran, it holds the flag
    itself, ``ctx.cancel_event``, or an elicitation or sampling it waited on was abandoned for it): a function
    that never saw it ran to its own end.
    """

    # Class-level defaults, no ``__init__``: one is made per request, and ``CancelFlag()`` then runs no Python
    # code (no module boundary on a call's path: bench/hops.md); an instance writes its own on first change.
    _set: bool = False
    _event: threading.Event | None = None
    seen: bool = False

    def is_set(self) -> bool:
        """True once set."""
        return self._set

    def look(self) -> bool:
        """:meth:`is_set` asked by the tool's function: a True answer marks the flag :attr:`seen`."""
        if self._set:
            self.seen = True
        return self._set

    def set(self) -> None:
        """Set the flag and wake waiters."""
        self._set = True
        if self._event is not None:
            self._event.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until set (or ``timeout`` seconds); returns whether it is set."""
        if self._set:
            return True
        if self._event is None:
            self._event = threading.Event()
            if self._set:
                self._event.set()
        return self._event.wait(timeout)
