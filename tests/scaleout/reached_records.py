"""A process's job-store back end, for the tests of keeps that race or wait: :class:`Reached`."""

from __future__ import annotations

import threading
from typing import Any


class Reached:
    """A process's job-store back end that counts its reads of ``kept_data``, and whose first conditional write
    waits at ``together`` (when given) until the other process's reaches it too: the two keeps meet there."""

    def __init__(self, backend: Any, together: threading.Barrier | None = None) -> None:
        self.backend = backend
        self.together = together
        self.reads = 0

    def summaries(self, ids: Any, names: Any) -> list[dict[str, Any]]:
        self.reads += 1
        found: list[dict[str, Any]] = self.backend.summaries(ids, names)
        return found

    def keep_data(self, *args: Any) -> Any:
        if self.together is not None:
            together, self.together = self.together, None
            together.wait(60)
        return self.backend.keep_data(*args)
