"""A large result whose file cannot be written whole (the disk full, a file size limit) is kept in memory, and
what was written of it is removed: it stayed in the results folder without a ``.meta.json``, counted by no bound
and removed by nothing.

A real write refused by the kernel: a child Python with a file size limit (``RLIMIT_FSIZE``, SIGXFSZ ignored, so
a write past it fails with EFBIG) keeps a result larger than the limit.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

CHILD = """\
import json, os, resource, signal, sys
from nanohubmcp.server.results.store import ResultStore

signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (10_000, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
store = ResultStore(ttl=3600, directory=lambda: sys.argv[1])
for data in ("t" * 30_000, b"b" * 30_000):
    uri = store.keep(data, "text/plain", ".txt", "principal:bob")
    text = store.read(uri, "principal:bob")["contents"][0]["text"]
    print(json.dumps({"read": len(text), "files": sorted(os.listdir(os.path.join(sys.argv[1], "results")))}))
"""


def test_what_was_written_is_removed_and_the_result_read_from_memory(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path)], capture_output=True, text=True, timeout=60,
                          cwd=tmp_path, check=False)
    assert done.returncode == 0, done.stderr
    assert "cannot write the large result" in done.stderr
    for line in done.stdout.splitlines():
        assert json.loads(line) == {"read": 30_000, "files": [".lock"]}  # was: the 10,000 bytes written, kept
