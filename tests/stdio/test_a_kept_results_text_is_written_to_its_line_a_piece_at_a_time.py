"""Over stdio, a ``resources/read`` of a large kept result writes its line from the kept file a piece at a
time: the same bytes as the text read whole, with the server holding a few pieces, not the text (it held
the text about three times at once: the file's bytes, the string, the line's bytes, then their copy with the
newline).

The transport is the real one on real pipes; the expected line is what the in-memory client gets (the text
read whole), encoded. The read's peak is traced with tracemalloc in a process of its own: tracemalloc counts
every thread of its process, and in the whole suite's process other tests' threads added up to 0.5 MB (ci34).
A text holding UTF-16 surrogates (a pair's two halves, a lone one) was read whole (trial38 T5); it is written a
piece at a time too, as the wire writes it read whole.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import subprocess
import sys
import threading
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import wait_until

from nanohubmcp import MCPServer
from nanohubmcp.protocol import jsonenc
from nanohubmcp.testing import in_memory
from nanohubmcp.transports.stdio import StdioTransport

ARRAY = "[" + ",".join(repr(i / 7) for i in range(200_000)) + "]"  # 3.8 MB, as an array's JSON is kept
ODD = ('a "quoted" \\ back\tslash\n, é, 😀, \x01\x1f ' * 2_000) + "€"
PIECE = 64 * 1024
LEADS = {"plain": ("", 1), "surrogate-pair": ("é\ud83d\ude00", 4), "lone-surrogate": ("\ud800 ", 2)}
"""What the measured text starts with (trial38 T5: the file of a text holding surrogates was read whole), and the
bytes a character of its first piece takes in a ``str`` (Python holds a text with a character beyond U+FFFF at
four bytes a character, one with a surrogate at two: that piece's copies are that much larger)."""


def keep(server: MCPServer, text: str, mime_type: str = "application/json") -> str:
    def parts() -> Iterator[str]:
        for start in range(0, len(text), 100_000):
            yield text[start : start + 100_000]

    return server.core.result_store.keep_parts(parts, mime_type, ".json", None)[0]


def read_message(uri: str, request_id: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "resources/read", "params": {"uri": uri}}


class Lines:
    """The digests of the lines read from ``fd`` on a thread, read ``block`` bytes at a time."""

    def __init__(self, fd: int, block: int) -> None:
        self.digests: list[str] = []
        self._fd, self._block = fd, block
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        digest = hashlib.sha256()
        while data := os.read(self._fd, self._block):
            while b"\n" in data:
                line, _, data = data.partition(b"\n")
                digest.update(line + b"\n")
                self.digests.append(digest.hexdigest())
                digest = hashlib.sha256()
            digest.update(data)

    def join(self) -> None:
        self._thread.join(30)


@contextlib.contextmanager
def serving(state_dir: Path) -> Iterator[tuple[MCPServer, int, Lines]]:
    """The server over stdio on two pipes: the server, the descriptor to write lines to, the lines read."""
    server = MCPServer("kept-lines", state_dir=str(state_dir), max_kept_bytes=100_000_000, provenance=False)
    server.core.result_store.read_piece_bytes = PIECE
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    transport = StdioTransport(server, in_fd=in_r, out_fd=out_w)
    thread = threading.Thread(target=lambda: asyncio.run(transport.serve()), daemon=True)
    lines = Lines(out_r, PIECE)
    thread.start()
    try:
        yield server, in_w, lines
    finally:
        os.close(in_w)  # end of input: the server stops
        thread.join(30)
        os.close(out_w)
        lines.join()
        for fd in (in_r, out_r):
            os.close(fd)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[MCPServer, int, Lines]]:
    with serving(tmp_path) as parts:
        yield parts


def expected(server: MCPServer, message: dict[str, Any]) -> str:
    with in_memory(server, version="2025-03-26", session=False, timeout=60) as client:
        return hashlib.sha256(jsonenc.dumpb(client.send(message)) + b"\n").hexdigest()


def ask(in_w: int, lines: Lines, message: dict[str, Any]) -> str:
    count = len(lines.digests)
    os.write(in_w, json.dumps(message).encode() + b"\n")
    wait_until(lambda: len(lines.digests) > count, "the answer's line")
    return lines.digests[count]


@pytest.mark.parametrize(("text", "mime_type"), [(ARRAY, "application/json"), (ODD, "text/plain")],
                         ids=["array", "escapes"])
def test_the_line_is_the_bytes_the_text_read_whole_gives(
        served: tuple[MCPServer, int, Lines], text: str, mime_type: str) -> None:
    server, in_w, lines = served
    uri = keep(server, text, mime_type)
    message = read_message(uri, 5)
    want = expected(server, message)
    for piece in (PIECE, 3):
        server.core.result_store.read_piece_bytes = piece if len(text) < 1_000_000 else PIECE
        assert ask(in_w, lines, message) == want


def measure(state_dir: Path, lead: str = "plain") -> dict[str, Any]:
    """In a fresh process: the digest of the 11 MB read's line (its text starting with ``LEADS[lead][0]``), the
    digest wanted, the read's traced peak."""
    with serving(state_dir) as (server, in_w, lines):
        text = LEADS[lead][0] + ARRAY * 3  # 11 MB
        uri, small = keep(server, text), keep(server, LEADS[lead][0] + ARRAY[:100_000])
        message = read_message(uri, 2)
        want = expected(server, message)
        ask(in_w, lines, read_message(small, 1))  # (first uses)
        tracemalloc.start()
        try:
            got = ask(in_w, lines, message)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    return {"got": got, "want": want, "peak": peak, "size": len(text)}


CHILD = """
import json, sys
from pathlib import Path
sys.path[:0] = sys.argv[1:3]
module = __import__(Path(sys.argv[3]).stem)
print(json.dumps(module.measure(Path(sys.argv[4]), sys.argv[5])))
"""


@pytest.mark.parametrize("lead", LEADS)
def test_the_read_holds_a_few_pieces_not_the_text(tmp_path: Path, lead: str) -> None:
    here = Path(__file__).resolve()
    done = subprocess.run([sys.executable, "-c", CHILD, str(here.parent), str(here.parents[1]), here.name,
                           str(tmp_path), lead], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    read = json.loads(done.stdout.splitlines()[-1])
    assert read["got"] == read["want"]
    # Before: the text about three times (31 MB); one starting with surrogates 111 to 162 MB (read whole)
    assert read["peak"] < 12 * PIECE * LEADS[lead][1], (read["peak"], read["size"])
