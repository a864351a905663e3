"""Large results kept in memory while another process holds the results folder's lock make one log line, not
one each (review r20 L4).

A stopped peer holding the lock made every large result of the server log a warning; now the first does, the
others are counted, and their number is said once the lock is had again. The peer is a second open file of
the lock (a ``flock`` belongs to the open file: the store's own is excluded as another process's would be).
"""

from __future__ import annotations

import fcntl
import logging
import os
from pathlib import Path

import pytest

from nanohubmcp.server.results.folder import LOCK_NAME, FolderLock


def hold_times(lock: FolderLock, times: int) -> list[bool]:
    had = []
    for _ in range(times):
        with lock.holding(lambda: None, 0.0) as held:
            had.append(held)
    return had


def test_one_line_per_episode_and_the_count_when_the_lock_is_had_again(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    lock = FolderLock(str(tmp_path))
    assert hold_times(lock, 1) == [True]  # (the lock file exists)
    peer = os.open(tmp_path / LOCK_NAME, os.O_RDWR)
    try:
        with caplog.at_level(logging.WARNING, "nanohubmcp"):
            fcntl.flock(peer, fcntl.LOCK_EX)
            assert hold_times(lock, 3) == [False] * 3
            fcntl.flock(peer, fcntl.LOCK_UN)
            assert hold_times(lock, 2) == [True] * 2
            fcntl.flock(peer, fcntl.LOCK_EX)  # a second episode is said again
            assert hold_times(lock, 1) == [False]
    finally:
        os.close(peer)
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 3, said
    assert "kept in this process's memory" in said[0], said
    assert "another process holds the lock" in said[0], said
    assert said[1].endswith("is had again: 3 large results kept in this process's memory meanwhile"), said
    assert "kept in this process's memory" in said[2], said
    assert "had again" not in said[2], said
