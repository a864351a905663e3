"""The stop signals' handlers as a blocking serve found them, put back once it returned.

A blocking serve (:meth:`Runner.serve_forever <..serving.runner.Runner.serve_forever>`, stdio) takes SIGINT, SIGTERM and
SIGHUP on its event loop, at the Python level (:mod:`.exit_watch`) and, while it waits for tool calls after the stop,
with handlers that end the process at once (:mod:`.process_exit`). asyncio, closing its loop, sets Python's own
defaults (KeyboardInterrupt for SIGINT, the default action for the others), not what was there: a SIGINT ignored
when the script started (a background job of a non-interactive shell) became KeyboardInterrupt for the code after
``run()``, and the wait's handlers stayed. :class:`FoundHandlers` reads them when serving begins and puts each back
as found, with one exception: once a SIGHUP reached the serve (its terminal closed), SIGHUP stays ignored, so a
repeat (a shell passes its own on) does not end the script's code after ``run()`` either.

Not this module's: which signals stop a serve (:func:`.workers.stop_signals`).
"""

from __future__ import annotations

import contextlib
import signal
import threading

from .workers import HANGUP

__all__ = ["FoundHandlers"]

SIGNALS = tuple(sig for sig in (signal.SIGINT, signal.SIGTERM, HANGUP) if sig is not None)
"""The signals a blocking serve may take: their handlers are put back."""


class FoundHandlers:
    """The handlers of :data:`SIGNALS` when made (in the main thread, before serving takes them)."""

    def __init__(self) -> None:
        self._found = {sig: signal.getsignal(sig) for sig in SIGNALS}
        self.hung_up = False
        """Whether a SIGHUP reached the serve (set by its taker): SIGHUP is then left ignored."""

    def put_back(self) -> None:
        """Give each signal its handler as found (SIGHUP ignored once :attr:`hung_up`); off the main thread, where
        nothing was taken, and for a handler set outside Python (``getsignal`` read None), nothing."""
        if threading.current_thread() is not threading.main_thread():
            return
        for sig, handler in self._found.items():
            if sig == HANGUP and self.hung_up:
                handler = signal.SIG_IGN
            if handler is not None:
                with contextlib.suppress(ValueError, OSError):
                    signal.signal(sig, handler)
