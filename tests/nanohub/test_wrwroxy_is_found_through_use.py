"""wrwroxy discovery through a login shell's ``use`` listing, and the command that starts it."""

from __future__ import annotations

import time

import pytest
from nanohub_standins import Hub

from nanohubmcp.nanohub.wrwroxy import (
    find_wrwroxy,
    parse_use_listing,
    pick_highest,
    version_key,
    wrwroxy_command,
)


@pytest.fixture
def login(hub: Hub, monkeypatch: pytest.MonkeyPatch) -> Hub:
    for name, value in hub.env().items():
        monkeypatch.setenv(name, value)
    return hub


def test_the_numerically_highest_version_is_found_in_the_stderr_listing(login: Hub) -> None:
    login.use("wrwroxy-0.2 wrwroxy-0.9: wrwroxy-0.10 wrwroxy-dev")
    assert find_wrwroxy() == "wrwroxy-0.10"


def test_a_listing_without_wrwroxy_finds_none(login: Hub) -> None:
    login.use("rappture-1.9 submit-3")
    assert find_wrwroxy() is None


def test_a_shell_without_use_finds_none(login: Hub) -> None:
    assert not (login.bin / "use").exists()
    assert find_wrwroxy() is None


def test_a_hanging_use_is_cut_off_at_the_timeout(login: Hub) -> None:
    login.use(hang=True)
    started = time.monotonic()
    assert find_wrwroxy(timeout=1.0) is None
    assert time.monotonic() - started < 6
    assert login.survivors() == []


@pytest.mark.parametrize(
    ("names", "best"),
    [
        (["wrwroxy-0.9", "wrwroxy-0.10"], "wrwroxy-0.10"),
        (["wrwroxy-1", "wrwroxy-0.99.99"], "wrwroxy-1"),
        (["wrwroxy-0.2.1", "wrwroxy-0.2"], "wrwroxy-0.2.1"),
        (["wrwroxy-dev", "wrwroxy-"], None),
        ([], None),
    ],
)
def test_versions_compare_as_numbers_not_strings(names: list[str], best: str | None) -> None:
    assert pick_highest(names) == best


def test_listing_tokens_lose_trailing_punctuation_and_quotes() -> None:
    text = (
        "Environments:\n  'wrwroxy-0.3', wrwroxy-0.4:\r\n(wrwroxy-0.5); wrwroxy-0.4 wrwroxyish-1 xwrwroxy-2\n"
    )
    assert parse_use_listing(text) == ["wrwroxy-0.3", "wrwroxy-0.4", "wrwroxy-0.5"]
    assert version_key("wrwroxy-0.10") == (0, 10)
    assert version_key("wrwroxy-0.10-beta") is None


def test_the_command_activates_the_version_and_execs_wrwroxy() -> None:
    argv = wrwroxy_command("wrwroxy-0.10", forward_port=8001)
    assert argv == [
        "bash",
        "-lc",
        "use -e wrwroxy-0.10 && exec wrwroxy --listenHost 0.0.0.0 --listenPort 8000 "
        "--forwardHost 127.0.0.1 --forwardPort 8001",
    ]
    debug = wrwroxy_command(
        "wrwroxy-0.10", forward_port=9001, listen_port=9000, listen_host="127.0.0.1", debug=True
    )
    assert debug[-1].endswith(
        "--listenHost 127.0.0.1 --listenPort 9000 --forwardHost 127.0.0.1 --forwardPort 9001 --stream-log"
    )
    assert wrwroxy_command("wrwroxy-1; rm -rf x", forward_port=1)[-1].startswith(
        "use -e 'wrwroxy-1; rm -rf x' && "
    )
