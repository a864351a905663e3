"""The Sim2L source imports where ``fcntl`` does not (Windows), as every other user of it does, and a run's
claim then keeps apart the threads of the process (review r21 L3: ``nanohubmcp.sources.sim2l`` failed to import,
and ``add_sim2l`` and ``nanohubmcp sim2l`` with it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

_WITHOUT_FCNTL = """
import sys, threading
sys.modules["fcntl"] = None  # import fcntl raises ImportError, as off POSIX
import nanohubmcp.sources.sim2l
from nanohubmcp.sources.sim2l.store import RunStore, run_id
store, run = RunStore(sys.argv[1], "demo", "r1"), run_id({"x": 1})
inside, held, done = [], threading.Event(), threading.Event()
def hold():
    with store.claim(run):
        inside.append("first"); held.set(); done.wait(30); inside.append("first done")
def follow():
    with store.claim(run):
        inside.append("second")
holder = threading.Thread(target=hold); holder.start(); held.wait(10)
follower = threading.Thread(target=follow); follower.start(); follower.join(0.3)
waited = follower.is_alive()
done.set(); holder.join(10); follower.join(10)
print(waited, inside)
"""


def test_the_sim2l_source_imports_and_claims_runs_without_fcntl(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", _WITHOUT_FCNTL, str(tmp_path)], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "True ['first', 'first done', 'second']\n"
