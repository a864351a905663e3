"""Instructions of a server's cold start: spawn -> first ``initialize`` answered, counted by callgrind.

Used by ``bench/startup.py --instructions`` and by ``bench/run.py``'s instructions phase (the cold-start row's
instruction ratio beside its milliseconds; it decides that row's verdict, as instructions decide the feature rows').
A server runs under ``valgrind --tool=callgrind`` with ``PYTHONHASHSEED=0``; once its first answer arrives,
``callgrind_control --dump`` writes the part counted so far (start-up only, no shut-down). ~20-40 s a server.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from . import env, mcp, procs

HOST = "127.0.0.1"
SERVERS = {"ceiling": ("servers/ceiling_tornado.py", 8331), "ours": ("servers/ours.py", 8332)}
"""What run.py counts: the same servers as its cold-start phase, on ports of their own (the matrix's are free then)."""


def port_of(argv: list[str]) -> int:
    return int(argv[argv.index("--port") + 1])


async def instructions(argv: list[str], timeout: float) -> int | None:
    """User-space instructions of the server ``argv`` up to its first answer (callgrind, dumped then); None if it
    did not answer within ``timeout`` seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cg.out"
        tool = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}.%p"]
        server = procs.ServerProcess(["env", "PYTHONHASHSEED=0", *tool, *argv], env.BENCH, None)
        server.start()
        try:
            if await mcp.wait_ready(HOST, port_of(argv), timeout) is None:
                return None
            # ``env`` execs valgrind, which runs the server in that same process
            dump = ["callgrind_control", "--dump=first-answer", str(server.pid)]
            subprocess.run(dump, capture_output=True, timeout=60, check=False)
            dumps = sorted(Path(tmp).glob("cg.out.*"))
            return sum(_summary(d) for d in dumps) or None
        finally:
            server.stop()


def _summary(path: Path) -> int:
    """Instructions of the part dumped at the first answer; 0 for any other part. Callgrind also writes
    the part after the dump when the process exits, which counts the shut-down: it exists only when
    SIGTERM ended the server within ``stop()``'s 5 s (under valgrind, depending on the host's load),
    and added ~26 M instructions to a reading then."""
    text = path.read_text(errors="replace")
    if not re.search(r"^desc: Trigger: .*first-answer", text, re.M):
        return 0
    m = re.search(r"^(?:summary|totals):\s+(\d+)", text, re.M)
    return int(m.group(1)) if m else 0


async def cold_start(python: str, log: Callable[[str], None], timeout: float = 300.0) -> dict[str, int | None]:
    """``{"ceiling": instructions, "ours": instructions}`` to the first answer, one count each (the same server
    counted twice differs by < 0.1 %)."""
    counts: dict[str, int | None] = {}
    for name, (script, port) in SERVERS.items():
        t = time.perf_counter()
        counts[name] = await instructions([python, script, "--port", str(port)], timeout)
        log(f"cold-start instructions {name}: {counts[name]} ({time.perf_counter() - t:.0f} s)")
    return counts
