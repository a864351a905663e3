"""An Image output's file is read as a regular file of at most ``VALUE_FILE_LIMIT`` bytes (review r41 follow-up).

R41-11's fix confined a Sim2L output's file to its run directory, but the image block read that file whole with a
plain ``open``: a FIFO named ``pic.png`` held the answer for good, a file of gigabytes went into memory whole. It is
now read as other files a run left (``server.wire.left_files``): past the limit, or not a regular file, the image block
is left out and the output's resource link alone carries it.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from nanohubmcp.sources.sim2l import results
from nanohubmcp.sources.sim2l.saved import VALUE_FILE_LIMIT

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 64


def block_of(path: Path) -> dict[str, Any] | str | None:
    found: list[dict[str, Any] | None] = []
    reader = threading.Thread(target=lambda: found.append(results._image_block(str(path), None)), daemon=True)
    reader.start()
    reader.join(timeout=20)
    return found[0] if found else "still reading"


def test_a_regular_image_file_is_an_image_block(tmp_path: Path) -> None:
    picture = tmp_path / "pic.png"
    picture.write_bytes(PNG)
    block = block_of(picture)
    assert isinstance(block, dict)
    assert block["type"] == "image"


def test_a_fifo_or_an_oversized_image_file_is_left_to_its_link(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.png"
    os.mkfifo(fifo)
    assert block_of(fifo) is None  # (before: open() waited for a writer, for good)
    big = tmp_path / "big.png"
    with open(big, "wb") as stream:
        stream.write(PNG)
        stream.truncate(VALUE_FILE_LIMIT + 1)  # sparse: no disk used
    assert block_of(big) is None
