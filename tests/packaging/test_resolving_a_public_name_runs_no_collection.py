"""Resolving a public name of ``nanohubmcp`` (``from nanohubmcp import MCPServer``) imports its modules with the
cyclic garbage collector off, and leaves the collector as it found it.

A collection during those imports walks modules, classes and functions that live as long as the process: ~3-4.4 M
instructions of a cold start's ~515 M (issue 28, bench/startup.md). Each case runs in a fresh interpreter that
imported the package: the collections counted are those ``gc.callbacks`` sees while the name resolves.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

PROBE = textwrap.dedent("""
    import gc, json, sys

    import nanohubmcp  # (its own few lines: typing, importlib)

    if sys.argv[1] == "off":
        gc.disable()
    passes = []
    gc.callbacks.append(lambda phase, info: phase == "start" and passes.append(info["generation"]))
    MCPServer = nanohubmcp.MCPServer
    gc.callbacks.clear()
    print(json.dumps({"passes": passes, "on": gc.isenabled(), "resolved": MCPServer.__name__}))
""")


@pytest.mark.parametrize(("collector", "on_after"), [("on", True), ("off", False)])
def test_a_name_resolves_with_no_collection_and_the_collector_as_found(collector: str, on_after: bool) -> None:
    out = subprocess.run([sys.executable, "-c", PROBE, collector], capture_output=True, text=True, timeout=120,
                         check=True)
    assert json.loads(out.stdout) == {"passes": [], "on": on_after, "resolved": "MCPServer"}, out.stderr
