"""A cached tool held in the middle of a call while a test changes what the tool reads: the tool passes
through :meth:`Pause.point`; :meth:`Pause.call_while` calls it on a thread, runs the change once the tool is
there, then lets it go on and returns the call's result. Ordered with events, never with sleeps.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

WAIT = 10.0


class Pause:
    """A point a test's tool passes through; off until :meth:`call_while` turns it on for one call. Its
    state changes in place (a dict, events), never by assignment, so the tool's cache key never sees it."""

    def __init__(self) -> None:
        self.state = {"on": False}
        self.entered, self.go_on = threading.Event(), threading.Event()

    def point(self) -> None:
        if self.state["on"]:
            self.entered.set()
            self.go_on.wait(WAIT)

    def call_while(self, server: Any, tool: str, arguments: dict[str, Any],
                   meanwhile: Callable[[], None]) -> dict[str, Any]:
        """``server.call(tool, arguments)`` with ``meanwhile()`` run while the tool waits at its point."""
        self.entered.clear()
        self.go_on.clear()
        self.state["on"] = True
        answers: list[dict[str, Any]] = []
        caller = threading.Thread(target=lambda: answers.append(server.call(tool, arguments)))
        try:
            caller.start()
            assert self.entered.wait(WAIT), "the tool never reached its point"
            meanwhile()
        finally:
            self.state["on"] = False
            self.go_on.set()
            caller.join(WAIT)
        assert answers, "the call did not answer"
        return answers[0]
