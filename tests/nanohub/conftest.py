"""Fixtures of the nanoHUB tests: a fake hub (login shell, stand-ins) and launcher runs."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from nanohub_standins import Hub, Launch


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[Hub]:
    made = Hub(tmp_path)
    yield made
    made.kill_survivors()


@pytest.fixture
def launch(hub: Hub) -> Iterator[Callable[..., Launch]]:
    started: list[Launch] = []

    def start(args: list[str], env: dict[str, str] | None = None) -> Launch:
        run = Launch(hub, args, hub.env() if env is None else env)
        started.append(run)
        return run

    yield start
    for run in started:
        run.stop()
