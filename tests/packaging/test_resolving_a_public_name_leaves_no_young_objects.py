"""What resolving a public name of ``nanohubmcp`` imported joins the collector's oldest generation unwalked.

Its modules import with the collector off (test_resolving_a_public_name_runs_no_collection.py): everything they made
(~29,000 objects for ``MCPServer``, nearly all kept as long as the process) would then be in the youngest
generation, and the first young pass after it would walk them all (~9 M instructions of a cold start's ~512 M,
issue 28, bench/startup.md). They are moved to the oldest generation instead (``gc.freeze()`` then
``gc.unfreeze()``: list moves, no walk), unless something is frozen, which that would thaw. Each case runs in a
fresh interpreter.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

PROBE = textwrap.dedent("""
    import gc, json, sys

    import nanohubmcp

    marker = [object()]  # tracked by the collector
    if sys.argv[1] == "frozen":
        gc.freeze()  # what a program (or a --workers parent) froze before the name resolved
    MCPServer = nanohubmcp.MCPServer
    print(json.dumps({"young": len(gc.get_objects(0)), "frozen": gc.get_freeze_count(), "on": gc.isenabled(),
                      "marker thawed": any(each is marker for each in gc.get_objects())}))
""")


def probe(case: str) -> dict[str, int | bool]:
    out = subprocess.run([sys.executable, "-c", PROBE, case], capture_output=True, text=True, timeout=120, check=True)
    return json.loads(out.stdout)


def test_what_a_name_imported_is_not_left_to_the_first_young_pass() -> None:
    seen = probe("plain")
    assert seen["young"] < 1000, seen  # before: ~26,000, all the imports made
    assert seen["frozen"] == 0, seen
    assert seen["on"], seen


def test_a_freeze_made_before_the_name_resolved_is_not_thawed() -> None:
    seen = probe("frozen")
    assert seen["frozen"] > 0, seen
    assert not seen["marker thawed"], seen
