"""A call hands its record over and answers; the record is made and written by the process's
writing thread in batches. The writer's queue is bounded: when it is full (the disk does not keep up) an
item is dropped and counted, with a warning, and the caller never waits. A record is readable as
soon as the call has answered (a read writes what is pending first), and records still pending
when the process exits are written before it ends.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from nanohubmcp.server.provenance.records import ProvenanceStore
from nanohubmcp.server.provenance.writer import BatchWriter


def test_a_full_queue_drops_and_counts_instead_of_blocking(caplog: pytest.LogCaptureFixture) -> None:
    disk_free = threading.Event()
    started = threading.Event()
    written: list[int] = []

    def write(batch: list[int]) -> None:
        started.set()
        assert disk_free.wait(60)
        written.extend(batch)

    writer: BatchWriter[int] = BatchWriter(write, name="test-writer", max_pending=3)
    assert writer.add(0)
    assert started.wait(60)  # the writer holds item 0 and waits for the "disk"
    with caplog.at_level(logging.WARNING, logger="nanohubmcp.provenance"):
        accepted = [n for n in range(1, 10) if writer.add(n)]
    assert accepted == [1, 2, 3]
    assert writer.dropped == 6
    assert "dropped 1 so far" in caplog.text  # said once, not six times
    assert caplog.text.count("dropped") == 1
    disk_free.set()
    writer.drain()  # waits for the batch being written, then writes the rest in order
    assert written == [0, 1, 2, 3]


def test_a_drain_writes_in_the_order_added_from_every_thread() -> None:
    written: list[tuple[int, int]] = []
    writer: BatchWriter[tuple[int, int]] = BatchWriter(written.extend, name="test-writer")

    def produce(source: int) -> None:
        for n in range(500):
            assert writer.add((source, n))

    threads = [threading.Thread(target=produce, args=(s,)) for s in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    writer.drain()
    assert len(written) == 2000
    for source in range(4):
        assert [n for s, n in written if s == source] == list(range(500))
    writer.close()
    assert writer.add((9, 9))  # a closed writer takes items again
    writer.drain()
    assert written[-1] == (9, 9)


SCRIPT = """
import sys
from nanohubmcp import MCPServer

server = MCPServer("exits-at-once", state_dir=sys.argv[1])

@server.tool()
def add(a: float, b: float) -> float:
    '''a + b.'''
    return a + b

server.start(port=0)
for n in range(20):
    result = server.call("add", {"a": n, "b": 1})
print(result["_meta"]["io.nanohub/provenance"])
# no stop, no close: the interpreter exits with records still waiting for the writer
"""


def test_records_still_pending_at_exit_are_written(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    uri = done.stdout.strip().splitlines()[-1]
    record_id = uri.rsplit("/", 1)[-1]
    files = list(tmp_path.rglob("provenance.sqlite3"))
    assert len(files) == 1
    db = sqlite3.connect(files[0])
    try:
        (count,) = db.execute("SELECT count(*) FROM calls WHERE tool = 'add'").fetchone()
    finally:
        db.close()
    assert count == 20
    store = ProvenanceStore(3600.0, lambda: str(files[0].parent))  # a new process reading the file
    try:
        record = store.find(record_id)
    finally:
        store.close()
    assert record is not None
    assert record["arguments"] == {"a": 19, "b": 1}
    assert record["status"] == "completed"
    assert record["result_digest"].startswith("sha256:")


def test_a_record_keeps_an_arrays_values_as_json_reads_them() -> None:
    np = pytest.importorskip("numpy")
    from nanohubmcp import MCPServer
    from nanohubmcp.server.provenance.records import record_id_of

    server = MCPServer("arrays-recorded", job_store="memory")

    @server.tool()
    def ramp(n: int) -> object:
        """0, 0.5, 1, ... (n values)."""
        return np.arange(n) / 2

    server.start(port=0)
    try:
        result = server.call("ramp", {"n": 4})
        record = server.core.provenance.find(record_id_of(result["_meta"]["io.nanohub/provenance"]))
    finally:
        server.stop()
    assert record is not None
    text = json.dumps(record["result"])  # plain JSON values, not the encoder's own wrapper of the data
    assert "Encoded" not in text
    assert [0.0, 0.5, 1.0, 1.5] in list(_lists(json.loads(text)))
    assert record["result_digest"].startswith("sha256:")


def _lists(value: object) -> Iterator[object]:
    if isinstance(value, list):
        yield value
        for item in value:
            yield from _lists(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _lists(item)


def test_a_full_batch_is_written_without_waiting_for_the_gathering(monkeypatch: pytest.MonkeyPatch) -> None:
    """The writing thread gathers items for up to DELAY_SECONDS after the first, but writes as
    soon as a writer holds a whole batch (under load records do not wait the delay out)."""
    from nanohubmcp.server.provenance import writer as writing

    monkeypatch.setattr(writing, "DELAY_SECONDS", 600.0)  # only a full batch ends this gathering
    written: list[int] = []
    done = threading.Event()

    def write(batch: list[int]) -> None:
        written.extend(batch)
        if len(written) >= writing.BATCH:
            done.set()

    writer: BatchWriter[int] = BatchWriter(write, name="test-writer")
    for n in range(writing.BATCH):
        assert writer.add(n)
    assert done.wait(60)
    assert written == list(range(writing.BATCH))


def _writer_answering_meanwhile(
    monkeypatch: pytest.MonkeyPatch, delay: float
) -> tuple[BatchWriter[int], list[list[int]], threading.Event]:
    """A writer whose first batch, while it is written, sees 10 more items come in (calls answered
    meanwhile); ``done`` is set once that first round of writing is over."""
    from nanohubmcp.server.provenance import writer as writing

    monkeypatch.setattr(writing, "DELAY_SECONDS", delay)
    batches: list[list[int]] = []
    done = threading.Event()
    holder: list[BatchWriter[int]] = []

    def write(batch: list[int]) -> None:
        if not batches:
            for n in range(writing.BATCH, writing.BATCH + 10):
                assert holder[0].add(n)
        batches.append(batch)

    writer: BatchWriter[int] = BatchWriter(write, name="test-writer")
    holder.append(writer)

    def round_over() -> None:  # the first round's drain has let go
        for _ in range(600):
            if batches and not writer._drain_lock.locked():
                done.set()
                return
            done.wait(0.01)

    threading.Thread(target=round_over, daemon=True).start()
    return writer, batches, done


def _wait_for(condition: Callable[[], bool]) -> None:
    pause = threading.Event()
    for _ in range(600):
        if condition():
            return
        pause.wait(0.1)
    raise AssertionError("not within 60 s")


def test_what_comes_in_while_a_full_batch_is_written_waits_for_the_next_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under load, the calls answered while a full batch was being written made a small batch of their own
    (a batch's fixed cost for a few records); they now wait for the next round."""
    from nanohubmcp.server.provenance import writer as writing

    writer, batches, done = _writer_answering_meanwhile(monkeypatch, 600.0)  # only full batches end a gathering
    for n in range(writing.BATCH):
        assert writer.add(n)
    assert done.wait(60)
    for n in range(writing.BATCH + 10, 2 * writing.BATCH):
        assert writer.add(n)
    _wait_for(lambda: sum(map(len, batches)) >= 2 * writing.BATCH)
    assert [len(batch) for batch in batches] == [writing.BATCH, writing.BATCH]
    assert [n for batch in batches for n in batch] == list(range(2 * writing.BATCH))


def test_what_a_full_batch_left_is_written_after_the_gathering_delay(monkeypatch: pytest.MonkeyPatch) -> None:
    from nanohubmcp.server.provenance import writer as writing

    writer, batches, done = _writer_answering_meanwhile(monkeypatch, 0.05)
    for n in range(writing.BATCH):
        assert writer.add(n)
    assert done.wait(60)  # no more items come: the ten are not stranded
    _wait_for(lambda: sum(map(len, batches)) >= writing.BATCH + 10)
    assert [n for batch in batches for n in batch] == list(range(writing.BATCH + 10))
