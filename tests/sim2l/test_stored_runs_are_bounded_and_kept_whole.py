"""The store of Sim2L runs (no kernel): a run is stored only whole (renamed into place), identical
ids wait for each other, and a Sim2L keeps at most ``max_runs`` runs, removing the least recently
stored or answered from; a run id that is not 64 hex digits is refused (it names a directory)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from nanohubmcp.sources.sim2l import claims
from nanohubmcp.sources.sim2l.store import RunStore, run_id


def _half_made(root: Path) -> list[str]:
    """What ``<root>/.running`` holds besides each process's own folder of scratch runs and its lock."""
    found = []
    for entry in (root / ".running").iterdir():
        if entry.name.startswith("nanohubmcp-sim2l-"):
            found += [f"{entry.name}/{p.name}" for p in entry.iterdir() if p.name != "owner.lock"]
        else:
            found.append(entry.name)
    return sorted(found)


def _store_one(store: RunStore, identity: dict[str, int]) -> str:
    run = run_id(identity)
    scratch = store.scratch()
    Path(scratch, "out.txt").write_text(str(identity))
    store.keep(scratch, run, identity, time.time())
    return run


def test_the_least_recently_used_runs_go_when_the_store_is_full(tmp_path: Path) -> None:
    store = RunStore(str(tmp_path), "demo", "r1", max_runs=2)
    first, second = _store_one(store, {"x": 1}), _store_one(store, {"x": 2})
    old = time.time() - 100
    os.utime(Path(store.path(first), "run.json"), (old, old))
    os.utime(Path(store.path(second), "run.json"), (old - 50, old - 50))
    assert store.find(first) is not None  # answered from: now the most recently used
    third = _store_one(store, {"x": 3})
    assert store.find(second) is None
    assert store.find(first) is not None
    assert store.find(third) is not None
    assert _half_made(tmp_path) == []  # nothing half-made is left
    assert run_id({"x": 1}) == first  # the id is a function of the inputs
    assert run_id({"x": 1}) != run_id({"x": 1.5})
    with pytest.raises(ValueError, match="not a run id"):
        store.path("../../etc")
    with pytest.raises(ValueError, match="at least 1"):
        RunStore(str(tmp_path), "demo", "r1", max_runs=0)


def test_a_new_run_replaces_the_stored_one_only_when_asked(tmp_path: Path) -> None:
    store = RunStore(str(tmp_path), "demo", "r1")
    run = _store_one(store, {"x": 1})
    again = store.scratch()
    Path(again, "out.txt").write_text("second")
    store.keep(again, run, {"x": 1}, time.time())  # cache=True: the stored run stays
    assert Path(store.path(run), "out.txt").read_text() == "{'x': 1}"
    third = store.scratch()
    Path(third, "out.txt").write_text("third")
    store.keep(third, run, {"x": 1}, time.time(), replace=True)  # cache=False: the new run is the answer
    assert Path(store.path(run), "out.txt").read_text() == "third"
    assert _half_made(tmp_path) == []


@pytest.mark.parametrize("follower_store", ["the same store", "another store, its folder named through a link"])
def test_identical_run_ids_wait_for_each_other(tmp_path: Path, follower_store: str) -> None:
    store = other = RunStore(str(tmp_path), "demo", "r1")
    if follower_store != "the same store":
        # a record lock does not keep apart the threads of one process: the claims' thread locks do, one per
        # claim file of the process, however a store spells its folder (review r21 M6's lockf)
        (tmp_path / "link").symlink_to(tmp_path, target_is_directory=True)
        other = RunStore(str(tmp_path / "link"), "demo", "r1")
    run = run_id({"x": 1})
    inside: list[str] = []
    entered = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with store.claim(run):
            inside.append("first")
            entered.set()
            release.wait(10)
            inside.append("first done")

    def follow() -> None:
        with other.claim(run):
            inside.append("second")

    holder = threading.Thread(target=hold)
    holder.start()
    assert entered.wait(10)
    follower = threading.Thread(target=follow)
    follower.start()
    follower.join(0.2)
    assert follower.is_alive()  # waiting for the first
    release.set()
    holder.join(10)
    follower.join(10)
    assert inside == ["first", "first done", "second"]
    assert claims.in_use() == 0  # nothing kept once both are done


_HOLD = """
import sys, time
from pathlib import Path
from nanohubmcp.sources.sim2l import claims
from nanohubmcp.sources.sim2l.store import RunStore, run_id
root, go = sys.argv[1], Path(sys.argv[2])
with RunStore(root, "demo", "r1").claim(run_id({"x": 1})):
    Path(root, "held").write_text("yes")
    deadline = time.monotonic() + 20
    while not go.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    Path(root, "released").write_text("yes")
"""


def test_identical_run_ids_wait_for_each_other_across_processes(tmp_path: Path) -> None:
    # trial39 R15: each worker of `--workers` ran the same inputs' notebook at once
    go = tmp_path / "go"
    child = subprocess.Popen([sys.executable, "-c", _HOLD, str(tmp_path), str(go)], env=dict(os.environ))
    try:
        deadline = time.monotonic() + 20
        while not (tmp_path / "held").exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert (tmp_path / "held").exists()
        store = RunStore(str(tmp_path), "demo", "r1")
        seen: list[bool] = []

        def follow() -> None:
            with store.claim(run_id({"x": 1})):
                seen.append((tmp_path / "released").exists())

        follower = threading.Thread(target=follow)
        follower.start()
        follower.join(0.3)
        assert follower.is_alive()  # waiting for the other process's run
        go.write_text("go")
        follower.join(20)
        assert seen == [True]
        assert child.wait(20) == 0
    finally:
        child.kill()
        child.wait()
    assert _half_made(tmp_path) == []  # no claim is left behind
