"""The kept-results bounds hold over every process sharing one state directory (trial31 S7).

``max_kept_bytes_per_owner`` and ``max_kept_bytes`` were each process's own: with two processes sharing a
``--state-dir`` (scale-out's setup), one principal calling a tool with a large result on each in turn kept
twice its share. An evicted link read "Resource evicted" on the process that evicted it but plain "not
found" on the other, and the eviction message named a principal's bound "per caller". Now a keep holds the
results folder's lock and counts what every process kept, an eviction leaves a note in the folder the other
processes read, and the message names the principal's bound as such.

Each :class:`ResultStore` below is what one server process holds; the folder's lock is a ``flock`` on an
open file, which two stores of one process contend for as two processes do.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

from nanohubmcp.server.results.store import ResultStore

SIZE = 23_891
"""Each result's bytes (the trial's ``big(n=5000)``)."""
BOB = "principal:bob"


def stores(tmp_path: Path, count: int = 2) -> list[ResultStore]:
    return [ResultStore(ttl=3600, max_bytes=300_000, max_bytes_per_owner=100_000, directory=lambda: str(tmp_path))
            for _ in range(count)]


def readable(store: ResultStore, uris: list[str], owner: str) -> list[str]:
    return [uri for uri in uris if store.read(uri, owner) is not None]


def test_one_principal_keeps_its_share_over_both_processes(tmp_path: Path) -> None:
    first, second = stores(tmp_path)
    uris = [(first if i % 2 == 0 else second).keep("x" * SIZE, "text/plain", ".txt", BOB) for i in range(12)]
    for store in (first, second):
        kept = readable(store, uris, BOB)
        assert len(kept) * SIZE <= 100_000  # was: 8 of them, 191,128 bytes
        assert kept == uris[-len(kept):]  # the newest are kept
    gone = uris[0]
    for store in (first, second):  # kept by the first, evicted by one of them: both say so
        message = store.evicted(gone, BOB)
        assert message is not None
        assert message.startswith(f"Resource evicted: {gone}: the server keeps at most 100000 bytes of large "
                                  "results per principal")
    assert second.evicted(gone, "principal:alice") is None  # not hers: never existed, as far as she can tell


def test_the_whole_store_is_bounded_over_both_processes(tmp_path: Path) -> None:
    first, second = stores(tmp_path)
    uris = []
    for i in range(16):  # four principals, each within its share: the total bound is what evicts
        owner = f"principal:{'abcd'[i % 4]}"
        uris.append(((first if i % 2 == 0 else second).keep("y" * SIZE, "text/plain", ".txt", owner), owner))
    held = sum(SIZE for uri, owner in uris if first.read(uri, owner) is not None)
    assert held <= 300_000
    assert "for all callers" in (second.evicted(uris[0][0], uris[0][1]) or "")


def test_keeps_at_once_on_both_processes_stay_within_the_share(tmp_path: Path) -> None:
    first, second = stores(tmp_path)
    uris: list[str] = []
    lock = threading.Lock()

    def keep(store: ResultStore) -> None:
        for _ in range(10):
            uri = store.keep("z" * SIZE, "text/plain", ".txt", BOB)
            with lock:
                uris.append(uri)

    threads = [threading.Thread(target=keep, args=(store,)) for store in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(uris) == 20
    assert len(readable(stores(tmp_path, 1)[0], uris, BOB)) * SIZE <= 100_000  # a third process counts the same
    files = [p for p in (tmp_path / "results").iterdir() if p.name.endswith(".txt")]
    assert len(files) * SIZE <= 100_000


def files_of(tmp_path: Path, owner: str) -> int:
    """How many results the folder holds for ``owner`` (by their ``.meta.json`` files)."""
    metas = (json.loads(p.read_text()) for p in (tmp_path / "results").glob("*.meta.json"))
    return sum(meta["owner"] == owner for meta in metas)


def test_a_process_keeping_again_takes_in_what_the_other_kept_meanwhile(tmp_path: Path) -> None:
    first, second = stores(tmp_path)  # four results fit in the share
    first.keep("a" * SIZE, "text/plain", ".txt", BOB)
    second.keep("b" * SIZE, "text/plain", ".txt", BOB)  # (the count it wrote was the one the first had seen)
    for _ in range(3):
        first.keep("c" * SIZE, "text/plain", ".txt", BOB)
        assert files_of(tmp_path, BOB) * SIZE <= 100_000  # was: the second's result never counted, 5 kept


def test_results_learned_of_by_reading_them_are_evicted_oldest_first(tmp_path: Path) -> None:
    first, second = stores(tmp_path)
    assert first.read(second.keep("a" * SIZE, "text/plain", ".txt", "principal:alice"), BOB) is None  # (opened)
    uris = [second.keep("b" * SIZE, "text/plain", ".txt", BOB) for _ in range(4)]
    assert readable(first, uris[::-1], BOB) == uris[::-1]  # read newest first: the first learns of each so
    first.keep("c" * SIZE, "text/plain", ".txt", BOB)
    assert readable(first, uris, BOB) == uris[1:]  # was: the newest evicted, as the first learned of it first
