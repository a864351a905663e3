"""Issue 22's bound on how far one steady-state ``tools/call`` travels: at most 39 module hops over Streamable HTTP
and 29 over stdio (issue 22 set 28; one more since stdio and the in-memory client answer each message on one path,
``transports/one_peer``: bench/hops.md) (``bench/hops.py --warm 10``: a structure figure).

The fewest hops of the measured calls is the figure: a call whose body the host's scheduling let arrive after its
headers also passes the body budget (``transports/budget``, 2 hops), more often on a loaded host (the median of 9
calls read 41 in a CI-like run), which says nothing of the path's structure.

The bound slipped twice unseen between full benchmark runs (47/32 at one run, then 44/31, 41/29 when ``CancelFlag``
moved to a module of its own and its ``__init__`` became a boundary on every call): now a change that adds a
module boundary to the call's path fails here, naming the path, and the change either takes one back or moves the
bound with a reason in bench/hops.md.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BOUNDS = {"streamable-http": 39, "stdio": 29}


def test_a_steady_tools_call_crosses_at_most_the_bound() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "hops.py"), "--rounds", "9", "--warm", "10", "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(done.stdout)
    over = {transport: figures[transport]["hops_min"] for transport, bound in BOUNDS.items()
            if figures[transport]["hops_min"] > bound}
    assert not over, (f"module hops over issue 22's bound {BOUNDS}: {over}; see the path with "
                      f"`python bench/hops.py --warm 10 --trace http` (or stdio) and bench/hops.md")
