"""The table text blocks alive (``escaped_text.alive``) are counted exactly while threads make and free them
at once, so the encoder still copies a block's escaped form afterwards.

A count that drifted below the truth would stop the encoder looking for one for good: every later table's
text escaped a second time (the same bytes, slower). ``count += 1`` is a read and a write another thread may
come between without the GIL; the count is a list whose ``append``/``pop`` are one step each. (On this
interpreter, with the GIL, the old integer did not drift in this test either: it checks the contract.)
"""

from __future__ import annotations

import sys
import threading

from nanohubmcp.protocol import escaped_text, jsonenc
from nanohubmcp.protocol.escaped_text import KnownText

THREADS = 4
EACH = 5_000


def churn(start: threading.Barrier) -> None:
    start.wait(5)
    for n in range(EACH):
        held = [KnownText("x", "x") for _ in range(n % 3 + 1)]
        del held


def test_the_count_is_exact_after_threads_made_and_freed_texts_at_once() -> None:
    before = len(escaped_text.alive)
    start = threading.Barrier(THREADS)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter will
    try:
        workers = [threading.Thread(target=churn, args=(start,)) for _ in range(THREADS)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(30)
    finally:
        sys.setswitchinterval(interval)
    assert not any(worker.is_alive() for worker in workers)
    assert len(escaped_text.alive) == before


def test_a_block_made_after_the_threads_is_copied_as_its_escaped_form() -> None:
    churn(threading.Barrier(1))
    # An escaped form unlike the string's own, so that the copy shows: the encoder wrote what it was handed.
    block = KnownText('{"a":1}', "copied")
    message = {"result": {"content": [{"type": "text", "text": block}]}}
    assert jsonenc.dumps(message) == '{"result":{"content":[{"type":"text","text":"copied"}]}}'
    del message, block
    assert jsonenc.dumps({"text": KnownText("a", "b")}) == '{"text":"a"}'  # (not a block: written as its str)
