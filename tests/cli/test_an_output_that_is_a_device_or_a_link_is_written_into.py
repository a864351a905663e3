"""``nanohubmcp server-json -o PATH`` writes a new file by renaming a temporary one over PATH — but a
PATH that is a device or a FIFO is written into, and a symbolic link stays a link. Run as root,
``-o /dev/null`` renamed a regular file over the machine's ``/dev/null`` (found when this host's
``/dev/null`` turned into a regular file that stdio tests then read stray output from)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def server_json(output: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nanohubmcp", "server-json", "examples/simple/start_mcp.py", "-o", str(output)],
        capture_output=True, text=True, timeout=60, cwd=ROOT, input="",
        env={k: v for k, v in os.environ.items() if k not in ("SESSION", "SESSIONDIR")},
    )  # fmt: skip


def test_a_fifo_is_written_into_and_stays_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "document"
    os.mkfifo(fifo)
    read: list[str] = []
    reader = threading.Thread(target=lambda: read.append(fifo.read_text()), daemon=True)
    reader.start()
    done = server_json(fifo)
    reader.join(30)
    assert done.returncode == 0, done.stderr
    assert stat.S_ISFIFO(fifo.stat().st_mode), "the FIFO was replaced by a regular file"
    assert json.loads(read[0])["version"]
    assert [p.name for p in tmp_path.iterdir()] == ["document"]  # no temporary file left beside it


def test_a_link_stays_a_link_and_the_file_it_names_gets_the_document(tmp_path: Path) -> None:
    target, link = tmp_path / "server.json", tmp_path / "link.json"
    target.write_text("old")
    link.symlink_to(target)
    done = server_json(link)
    assert done.returncode == 0, done.stderr
    assert link.is_symlink()
    assert json.loads(target.read_text())["version"]
