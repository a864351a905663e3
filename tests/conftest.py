"""Fixtures for every test. Helpers live in ``tests/support.py`` (``from support import ...``):
sub-folders have their own ``conftest.py``, so ``from support import`` would be ambiguous."""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import xdist_groups
from xdist_groups import WORKERINPUT_KEY

REPO = Path(__file__).resolve().parents[1]

# Notebook servers require a generated token by default; test kernels (and every process the
# tests start) inherit "no token" unless a test removes this to check the default.
os.environ.setdefault("MCP_TOKEN", "")
# A Python process the tests start that dies of a fatal signal (SIGSEGV: exit -11) prints every
# thread's stack on its stderr instead of nothing; tests that build an environment of their own add
# support.FAULTHANDLER to it.
os.environ.setdefault("PYTHONFAULTHANDLER", "1")


def _hangups_let_pass(signum: int, frame: object) -> None:
    """SIGHUP in the test process when the run started with it ignored: nothing, as nohup meant."""


# A run started under nohup (SIGHUP ignored) passed that on to every server process the tests start, and a
# server rightly keeps an ignored SIGHUP ignored: the tests of how SIGHUP stops a server failed. A handler of
# our own instead of the ignore: the test process still outlives a hangup, and every program it starts begins
# with SIGHUP at its default (exec resets a caught signal, never an ignored one). Tests of a server under nohup
# ignore it in the server's own process (tests/scaleout/test_sighup_stops_the_server_cleanly_and_says_why.py).
if signal.getsignal(signal.SIGHUP) == signal.SIG_IGN:
    signal.signal(signal.SIGHUP, _hangups_let_pass)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _state_dir_per_test(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test's servers (and the server processes it starts) keep their job store in a fresh
    directory, never in the user's data directory."""
    monkeypatch.setenv("NANOHUBMCP_STATE_DIR", str(tmp_path_factory.mktemp("state")))


@pytest.fixture
def loose_umask() -> Iterator[None]:
    """The process's umask set to 022 (a common default, which leaves files readable by others)."""
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)


@pytest.fixture(scope="session")
def slurm_cluster() -> str:
    """A real one-machine Slurm cluster, started (or reused) by ``scripts/slurm-single-node``
    (munged, MariaDB + slurmdbd, slurmctld, slurmd); returns the node's name.

    Its packages come from ``scripts/install-test-system-deps``: without them (or without root)
    the tests that need it are skipped on a developer machine and fail under ``CI=true``, so a
    missing install step cannot pass as green."""
    try:
        done = subprocess.run(
            [str(REPO / "scripts" / "slurm-single-node")], capture_output=True, text=True, timeout=300, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        done = subprocess.CompletedProcess([], 1, "", str(exc))
    if done.returncode != 0:
        message = f"no single-node Slurm here (scripts/slurm-single-node exited {done.returncode}): {done.stderr}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    node = subprocess.run(["sinfo", "-h", "-N", "-o", "%N"], capture_output=True, text=True, timeout=30, check=True)
    return node.stdout.split()[0]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under ``pytest -n N --dist loadgroup`` (scripts/test): the tests of one file run in one worker, in their
    order (a file's module fixtures start once), and every test of the one Slurm cluster in a single worker:
    some stop and restart its daemons, which the other Slurm tests would see. In a worker, the groups that took
    longest in a measured run come first (``xdist_groups``). Each test's group is in the JUnit XML
    (``--junitxml``) as its ``xdist_group`` property (``scripts/test-times`` reads it)."""
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            group = "slurm" if "slurm_cluster" in getattr(item, "fixturenames", ()) else item.nodeid.split("::", 1)[0]
            item.add_marker(pytest.mark.xdist_group(group))
        item.user_properties.append(("xdist_group", xdist_groups.group_of(item)))
    if WORKERINPUT_KEY in getattr(config, "workerinput", {}):
        xdist_groups.longest_first(items)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """In a worker of ``--dist loadgroup``: each test's group, for the controller's scheduler (written before
    xdist tells the controller the collection is complete)."""
    workerinput = getattr(session.config, "workerinput", {})
    if WORKERINPUT_KEY in workerinput:
        xdist_groups.write_groups(session.items, workerinput[WORKERINPUT_KEY], workerinput["workerid"])


def _sendable(text: str) -> str:
    """``text`` with any lone surrogate written as its escape (``\\udc00``): a worker sends its reports as UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """In an xdist worker: a report whose captured output or failure text holds a lone surrogate (tests of bad
    input log such text) is sent with it escaped; unescaped, the worker cannot encode the report and the whole run
    stops with an INTERNALERROR (CI of 2026-12-06 20:15)."""
    outcome = yield
    if not hasattr(item.config, "workerinput"):
        return
    report = outcome.get_result()  # type: ignore[attr-defined]
    report.sections = [(title, _sendable(content)) for title, content in report.sections]
    if report.longrepr is not None and _sendable(str(report.longrepr)) != str(report.longrepr):
        report.longrepr = _sendable(str(report.longrepr))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Under xdist, on the controller: a failed test is named in the log the moment its report arrives (xdist's
    progress shows only ``F``), with the worker and the phase, so a run stopped early (a CI time limit) still says
    which tests failed."""
    config = _controller_config
    if config is None or not report.failed:
        return
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        worker = getattr(report, "node", None)
        where = getattr(getattr(worker, "gateway", None), "id", "?")
        reporter.write("\n")  # (xdist's progress dots leave the line open)
        reporter.write_line(f"FAILED NOW [{where}] {report.nodeid} ({report.when})")


_controller_config: pytest.Config | None = None


def pytest_configure(config: pytest.Config) -> None:
    global _controller_config
    if config.pluginmanager.hasplugin("xdist") and not hasattr(config, "workerinput") and config.getoption(
            "numprocesses", None):
        _controller_config = config
        if config.getoption("dist", None) == "loadgroup":
            _groups_dir = tempfile.TemporaryDirectory(prefix="nanohubmcp-xdist-groups-")
            config.add_cleanup(_groups_dir.cleanup)
            config.stash[_GROUPS_DIR] = _groups_dir.name


_GROUPS_DIR = pytest.StashKey[str]()
"""Under ``--dist loadgroup``, on the controller: where the workers write their tests' groups."""


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """(xdist, on the controller) Tell each worker where to write its tests' groups."""
    if _GROUPS_DIR in node.config.stash:
        node.workerinput[WORKERINPUT_KEY] = node.config.stash[_GROUPS_DIR]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """(xdist) ``--dist loadgroup`` schedules whole groups, longest first (``xdist_groups.GroupScheduling``)."""
    if _GROUPS_DIR in config.stash:
        return xdist_groups.GroupScheduling(config, log, config.stash[_GROUPS_DIR])
    return None
