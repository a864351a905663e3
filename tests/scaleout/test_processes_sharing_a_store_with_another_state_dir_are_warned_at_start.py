"""Trial 66 F7: two servers sharing one Redis (``state_url``) but each with its own ``state_dir`` started without a
word, though a result one keeps as a link cannot be read through the other. A process now compares its state
directory with its live peers' once at start and logs one WARNING naming what to fix when one differs; with one
shared directory, or a peer that stopped, nothing is said.
"""

from __future__ import annotations

import contextlib
import logging
from pathlib import Path

import pytest
from redis_server import RedisServer
from support import serve, wait_until

from nanohubmcp import MCPServer

pytestmark = pytest.mark.timeout(120)

COMPARED = "state_dir compared with"


def _compared(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """The start-time comparisons logged so far (a DEBUG line when none differs, else the WARNING)."""
    return [r for r in caplog.records if r.name == "nanohubmcp.state" and
            (COMPARED in r.getMessage() or "is not the one other live processes" in r.getMessage())]


def _server(state_dir: Path, url: str) -> MCPServer:
    server = MCPServer("shared", state_dir=str(state_dir), state_url=url)

    @server.tool()
    def ping() -> str:
        """Answer "pong"."""
        return "pong"

    return server


def _started_one_after_the_other(first: Path, second: Path, url: str, caplog: pytest.LogCaptureFixture, *,
                                 overlapping: bool = True) -> list[logging.LogRecord]:
    """Serve a process with the state directory ``first``, then (while it serves, unless not ``overlapping``) one
    with ``second``; the two comparisons logged."""
    caplog.set_level(logging.DEBUG, "nanohubmcp.state")
    with contextlib.ExitStack() as served:
        served.enter_context(serve(_server(first, url)))
        wait_until(lambda: len(_compared(caplog)) == 1, "the first process compared its state_dir")
        if not overlapping:
            served.close()
        with serve(_server(second, url)):
            return wait_until(lambda: len(_compared(caplog)) == 2 and _compared(caplog),
                              "the second process compared its state_dir")


def test_a_process_whose_state_dir_differs_from_a_live_peers_says_so_once(
        tmp_path: Path, redis_server: RedisServer, caplog: pytest.LogCaptureFixture) -> None:
    first, second = _started_one_after_the_other(tmp_path / "state_a", tmp_path / "state_b", redis_server.url, caplog)
    assert first.levelno == logging.DEBUG, first.getMessage()  # (no live peer yet)
    message = second.getMessage()
    assert second.levelno == logging.WARNING, message
    assert str(tmp_path / "state_b") in message, message
    assert "give every process sharing this state_url the same --state-dir" in message, message
    assert "on storage they all share" in message, message
    assert str(tmp_path / "state_a") not in message  # (a peer's path is not in the store: only its digest)
    assert len([r for r in caplog.records if r.levelno >= logging.WARNING and "state_dir" in r.getMessage()]) == 1


def test_processes_sharing_one_state_dir_say_nothing(
        tmp_path: Path, redis_server: RedisServer, caplog: pytest.LogCaptureFixture) -> None:
    compared = _started_one_after_the_other(tmp_path / "state", tmp_path / "state", redis_server.url, caplog)
    assert [r.levelno for r in compared] == [logging.DEBUG, logging.DEBUG], [r.getMessage() for r in compared]
    assert "with 1 other live process(es): none is another" in compared[1].getMessage()


def test_a_peer_that_stopped_is_not_compared(
        tmp_path: Path, redis_server: RedisServer, caplog: pytest.LogCaptureFixture) -> None:
    compared = _started_one_after_the_other(tmp_path / "state_a", tmp_path / "state_b", redis_server.url, caplog,
                                            overlapping=False)
    assert compared[1].levelno == logging.DEBUG, compared[1].getMessage()
    assert "with 0 other live process(es)" in compared[1].getMessage()
