"""How ``pytest -n N --dist loadgroup`` (scripts/test) hands the tests to its workers: by group, longest first.

A test's group is its file, or ``slurm`` for every test of the one Slurm cluster (``tests/conftest.py``). Each
worker sorts its collection so the groups that took longest in a measured run (``group_seconds.txt`` beside this
file, written by ``scripts/test-times --write``) come first, and writes which group each test is in to a file the
controller named; :class:`GroupScheduling`, the controller's scheduler, reads it and hands out whole groups in that
order. With the long groups last (xdist sorts them by their number of tests), one worker ran a long group alone
at the end while the other had finished.

Why not xdist's own loadgroup scheduler: it learns a test's group from a suffix (``@group``) it adds to the test's
node id in the worker, and under pytest 9.2 that id is kept in another attribute, so the suffix never arrived and
every test was scheduled on its own (pytest-dev/pytest-xdist#1386, open): the tests of one file ran on both
workers, each starting the file's module fixtures, and the Slurm tests ran side by side.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from xdist.scheduler import LoadScopeScheduling

GROUP_SECONDS = Path(__file__).with_name("group_seconds.txt")
WORKERINPUT_KEY = "nanohubmcp_groups_dir"
"""The ``workerinput`` entry naming the folder where each worker writes its tests' groups."""


def measured_seconds(path: Path = GROUP_SECONDS) -> dict[str, float]:
    """The seconds of each group ``path`` lists (``<seconds> <group>`` a line, ``#`` comments), none if missing."""
    seconds: dict[str, float] = {}
    if path.is_file():
        for line in path.read_text().splitlines():
            figure, _, group = line.partition(" ")
            if group and not line.startswith("#"):
                seconds[group] = float(figure)
    return seconds


def group_of(item: pytest.Item) -> str:
    """The test's ``xdist_group`` (``tests/conftest.py`` gives every test one)."""
    marker = item.get_closest_marker("xdist_group")
    assert marker is not None, f"{item.nodeid} has no xdist_group"
    return str(marker.args[0] if marker.args else marker.kwargs["name"])


def longest_first(items: list[pytest.Item]) -> None:
    """Sort ``items`` in place: the measured groups first, longest first, then the rest in collection order (a
    group's own tests keep their order)."""
    seconds = measured_seconds()
    items.sort(key=lambda item: -seconds.get(group_of(item), 0.0))


def write_groups(items: list[pytest.Item], folder: str, worker: str) -> None:
    """Write ``[[node id, group], ...]`` for the controller (once complete: it reads any worker's file)."""
    path = Path(folder, f"{worker}.json")
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps([[item.nodeid, group_of(item)] for item in items]))
    os.replace(partial, path)


class GroupScheduling(LoadScopeScheduling):
    """xdist's scope scheduling with our groups as the scopes, handed out in the order the workers collected them."""

    def __init__(self, config: pytest.Config, log: object, folder: str) -> None:
        config.option.loadscopereorder = False  # keep the collection's order: longest group first
        super().__init__(config, log)  # type: ignore[arg-type]
        self._folder = Path(folder)
        self._groups: dict[str, str] | None = None

    def _split_scope(self, nodeid: str) -> str:
        if self._groups is None:
            written = sorted(self._folder.glob("*.json"))
            self._groups = dict(json.loads(written[0].read_text())) if written else {}
        return self._groups.get(nodeid) or nodeid.split("::", 1)[0]
