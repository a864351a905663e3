"""A server process killed (SIGKILL) in the middle of keeping a large result, holding the results folder's lock,
its result's data file made and its ``.meta.json`` not, leaves the folder to the others as it is: the kernel lets
go of the lock, the next process to keep takes in what the dead one evicted (the change count was raised as it
took the lock), and the data file whose ``.meta.json`` never came is removed, not left on disk uncounted forever.

The dead process is a real one: a :class:`ResultStore` in a child Python keeping a text that stops the child as
its first slice is written (the data file open, nothing in it, no ``.meta.json``), where the test kills it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support import wait_until

from nanohubmcp.server.results.folder import LOCK_NAME
from nanohubmcp.server.results.store import ResultStore

SIZE = 23_891
BOB, ALICE = "principal:bob", "principal:alice"
BOUNDS = {"ttl": 3600, "max_bytes": 5 * SIZE, "max_bytes_per_owner": 4 * SIZE}
"""Five results in all, four per principal."""

CHILD = f"""\
import sys
from nanohubmcp.server.results.store import ResultStore


class Stalling(str):
    def __getitem__(self, key):  # (the data file is open: its first slice is being written)
        print("writing", flush=True)
        sys.stdin.readline()  # (killed meanwhile)
        return super().__getitem__(key)


store = ResultStore(directory=lambda: sys.argv[1], **{BOUNDS!r})
store.keep(Stalling("c" * {SIZE}), "text/plain", ".txt", {BOB!r})
"""


def test_the_next_keep_takes_in_what_the_killed_process_did_and_removes_its_half_kept_file(tmp_path: Path) -> None:
    store = ResultStore(directory=lambda: str(tmp_path), **BOUNDS)
    first = store.keep("a" * SIZE, "text/plain", ".txt", ALICE)
    bobs = [store.keep("b" * SIZE, "text/plain", ".txt", BOB) for _ in range(4)]  # the store is full
    folder = tmp_path / "results"
    count = int((folder / LOCK_NAME).read_bytes())
    names = {p.name for p in folder.iterdir()}

    log = tmp_path / "child.log"
    with log.open("wb") as out:
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(tmp_path)], stdin=subprocess.PIPE, stdout=out,
                                 stderr=subprocess.STDOUT, cwd=tmp_path)
    try:  # it evicts bob's oldest to make room for bob's fifth, and is killed writing it
        wait_until(lambda: "writing" in log.read_text() or child.poll() is not None, "the child writes", 30)
        assert child.poll() is None, log.read_text()
    finally:
        child.kill()
        child.wait(10)
    half_kept = {p.name for p in folder.iterdir()} - names - {f"{bobs[0][21:]}.evicted.json"}
    assert len(half_kept) == 1, half_kept  # its data file, no .meta.json
    assert int((folder / LOCK_NAME).read_bytes()) == count + 1  # raised as the dead process took the lock

    second = store.keep("A" * SIZE, "text/plain", ".txt", ALICE)  # the lock is free: the kernel let go of it
    assert store.read(first, ALICE) is not None  # was evicted: bob's oldest, which the child evicted, still counted
    assert store.read(bobs[0], BOB) is None
    assert [store.read(uri, BOB) is not None for uri in bobs[1:]] == [True] * 3
    assert store.read(second, ALICE) is not None
    assert not (folder / half_kept.pop()).exists()  # was left on disk, counted by no process
    assert int((folder / LOCK_NAME).read_bytes()) == count + 2
