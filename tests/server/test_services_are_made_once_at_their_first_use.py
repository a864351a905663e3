"""The core's services a first answer does not use (``server/first_use.py``) are made when first
asked for, once, even when several threads ask at the same moment (the loop, a worker, a notebook's
thread); building a server makes none of them.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from nanohubmcp import MCPServer

ASKERS = 8


def test_each_service_is_made_once_when_first_asked_for(tmp_path: Path) -> None:
    server = MCPServer("made-later", state_dir=str(tmp_path))
    core = server.core
    assert core.first_use.jobs_made is None
    assert not tmp_path.exists() or not any(tmp_path.iterdir())

    barrier = threading.Barrier(ASKERS)
    seen: list[tuple[Any, ...]] = []

    def ask() -> None:
        barrier.wait(timeout=10)
        seen.append((core.job_service.jobs, core.first_use.recorder, core.provenance, core.result_store,
                     core.result_options, core.result_cache, core.first_use.cache_layer, core.request_codec,
                     core.job_service.task_inputs, core.skills))

    askers = [threading.Thread(target=ask) for _ in range(ASKERS)]
    for thread in askers:
        thread.start()
    for thread in askers:
        thread.join(timeout=30)
    assert len(seen) == ASKERS
    for services in seen[1:]:
        assert all(a is b for a, b in zip(services, seen[0], strict=True))
    assert core.first_use.jobs_made is core.job_service.jobs
    assert core.first_use.recorder.store is core.provenance

