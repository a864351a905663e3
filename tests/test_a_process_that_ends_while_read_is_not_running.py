"""``support.running`` reads a process that ends while it is read as not running, never as an error.

``/proc/<pid>/stat`` of a process reaped before the open is not there (``FileNotFoundError``); of one reaped
between the open and the read, the read fails with ``ESRCH`` (``ProcessLookupError``). The submit test's own
copy read it after ``os.kill(pid, 0)`` and caught neither: CI's run failed with ``[Errno 3] No such process``.
Each of a few hundred short processes is polled while a thread reaps it, which meets both windows (a loop of
2,000 met them 87 times with that copy).
"""

from __future__ import annotations

import subprocess
import threading

from support import running


def test_a_process_reaped_while_it_is_polled_reads_as_ended() -> None:
    for _ in range(300):
        process = subprocess.Popen(["true"])
        reaper = threading.Thread(target=process.wait)
        reaper.start()
        try:
            while running(process.pid):
                pass
        finally:
            reaper.join()
