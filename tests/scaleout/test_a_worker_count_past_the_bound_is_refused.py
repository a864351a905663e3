"""``run(workers=N)`` and ``nanohubmcp run --workers N`` refuse more than 8 processes per CPU (at least 64)
before anything is forked or reached (trial42 T42-18: ``--workers 100000`` forked about 1,000 processes and a
SIGTERM did not stop it). Nothing here starts a worker: each count is refused before the fork."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import refused_run

from nanohubmcp import MCPServer
from nanohubmcp.errors import ConfigurationError
from nanohubmcp.transports.limit_option import most_workers

UNREACHABLE = "redis://127.0.0.1:1/0"
"""A shared state URL nothing answers: a count past the bound is refused before the store is tried."""


def test_the_bound_is_eight_per_cpu_and_at_least_64() -> None:
    import os

    assert most_workers() == max(64, 8 * len(os.sched_getaffinity(0)))


@pytest.mark.parametrize("state_url", ["", UNREACHABLE])
def test_run_refuses_a_count_past_the_bound_naming_it(state_url: str) -> None:
    server = MCPServer("many", state_url=state_url)
    most = most_workers()
    with pytest.raises(ConfigurationError, match=rf"^workers must be a number of processes from 1 to {most} "
                       rf"\(8 per CPU, never fewer than 64\), not {most + 1}$"):
        server.run(port=0, workers=most + 1)


def test_the_command_refuses_a_count_past_the_bound_before_importing_the_app(tmp_path: Path) -> None:
    stderr = refused_run(tmp_path, "--workers", "100000")
    assert (f"argument --workers: must be a number of processes from 1 to {most_workers()} (8 per CPU, never fewer "
            "than 64), not '100000'") in stderr
