"""Child processes: group-wide stop, bounded port waits, port checks, bounded short commands."""

from __future__ import annotations

import socket
import sys
import time

from nanohub_standins import Hub

from nanohubmcp.nanohub.supervisor import Child, connect_host, port_is_free, run_bounded, wait_for_port


def test_stop_ends_the_child_and_what_it_started(hub: Hub) -> None:
    # bash starts a grandchild that ignores SIGTERM: only the SIGKILL round can end it.
    child = Child("sleeper", ["bash", "-c", "trap '' TERM; sleep 60 & sleep 60; wait"], hub.env())
    deadline = time.monotonic() + 10
    while len(hub.survivors()) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(hub.survivors()) == 3
    started = time.monotonic()
    child.stop(grace=1.0)
    assert time.monotonic() - started < 5
    assert hub.survivors() == []
    assert child.returncode() is not None


def test_stop_after_the_leader_exited_still_ends_its_group(hub: Hub) -> None:
    child = Child("leader", ["bash", "-c", "sleep 60 & exit 0"], hub.env())
    deadline = time.monotonic() + 10
    while child.returncode() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert child.returncode() == 0
    assert len(hub.survivors()) == 1
    child.stop(grace=2.0)
    assert hub.survivors() == []


def test_wait_for_port_reports_ready_died_cancelled_and_timeout(hub: Hub) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        assert (
            wait_for_port("127.0.0.1", port, timeout=5, alive=lambda: True, cancelled=lambda: False)
            == "ready"
        )
        assert not port_is_free("127.0.0.1", port)
    assert port_is_free("127.0.0.1", port)
    assert wait_for_port("127.0.0.1", port, timeout=5, alive=lambda: False, cancelled=lambda: False) == "died"
    assert (
        wait_for_port("127.0.0.1", port, timeout=5, alive=lambda: True, cancelled=lambda: True) == "cancelled"
    )
    started = time.monotonic()
    assert (
        wait_for_port("127.0.0.1", port, timeout=0.3, alive=lambda: True, cancelled=lambda: False)
        == "timeout"
    )
    assert time.monotonic() - started < 3


def test_wildcard_hosts_are_probed_on_loopback() -> None:
    assert [connect_host(h) for h in ("", "0.0.0.0", "::", "10.1.2.3")] == [
        "127.0.0.1",
        "127.0.0.1",
        "::1",
        "10.1.2.3",
    ]


def test_run_bounded_returns_output_or_none_and_leaves_nothing_behind(hub: Hub) -> None:
    assert run_bounded(
        [sys.executable, "-c", "import sys; print('o'); print('e', file=sys.stderr); sys.exit(4)"], timeout=10
    ) == (
        4,
        "o\n",
        "e\n",
    )
    started = time.monotonic()
    # The grandchild keeps the pipes open: the whole group must go for this to return.
    assert run_bounded(["bash", "-c", "sleep 60 & sleep 60"], timeout=0.5, env=hub.env()) is None
    assert time.monotonic() - started < 5
    assert hub.survivors() == []
