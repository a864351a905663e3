#!/usr/bin/env python3
"""What the result cache's reach (the helpers and constants a tool's code reaches) costs: the check
each call makes, and the walk made once per tool and again after one of its names is bound anew.

    PYTHONPATH=. .venv/bin/python bench/cache_reach.py

Four tools over real files in a temporary folder: ``add`` (no globals), ``via_module``
(``mylib.g(x) * config.SCALE``), ``via_from`` (``g(x)`` after ``from mylib import g``) and
``via_local`` (``import locallib`` in its body). For each: ``reach_hash`` when nothing was
rebound (what a call pays; the fastest of 7 rounds of 100,000), the walk (the fastest of 5
rounds of 500) and the number of names a call checks; then a cached ``server.call`` hit of
``add`` and ``via_module`` (median and fastest of 7 rounds of 2,000).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
import timeit
from pathlib import Path
from typing import Any

FILES = {
    "mylib.py": "CONST = 2\n\n\ndef g(x):\n    return x * CONST\n",
    "config.py": "SCALE = 2\n",
    "locallib.py": "def m(x):\n    return x - 1\n",
    "tools.py": (
        "import config\nimport mylib\nfrom mylib import g\n\n\n"
        "def add(a: int, b: int) -> int:\n    return a + b\n\n\n"
        "def via_module(x: int) -> int:\n    return mylib.g(x) * config.SCALE\n\n\n"
        "def via_from(x: int) -> int:\n    return g(x)\n\n\n"
        "def via_local(x: int) -> int:\n    import locallib\n    return locallib.m(x)\n"
    ),
}


class _Tool:
    def __init__(self, fn: Any) -> None:
        self.fn = fn
        self.extra: dict[str, Any] = {}


def main() -> None:
    from nanohubmcp import MCPServer
    from nanohubmcp.server.provenance import code_reach

    folder = Path(tempfile.mkdtemp())
    for name, text in FILES.items():
        (folder / name).write_text(text)
    sys.path.insert(0, str(folder))
    import tools  # type: ignore[import-not-found]

    for name in ("add", "via_module", "via_from", "via_local"):
        fn = getattr(tools, name)
        tool = _Tool(fn)
        code_reach.reach_hash(tool)
        kept = min(timeit.repeat(lambda t=tool: code_reach.reach_hash(t), number=100_000, repeat=7)) / 100_000
        walk = min(timeit.repeat(lambda f=fn: code_reach._walk(f), number=500, repeat=5)) / 500
        checked = len(tool.extra[code_reach.REACH].bindings)
        print(f"{name:11} call's check {kept * 1e9:6.0f} ns   walk {walk * 1e6:7.1f} us   names checked {checked}")

    server = MCPServer("reach", state_dir=tempfile.mkdtemp())
    server.tool(cache=True)(tools.add)
    server.tool(cache=True)(tools.via_module)
    server.start(port=0)
    try:
        for name, arguments in (("add", {"a": 1, "b": 2}), ("via_module", {"x": 3})):
            server.call(name, arguments)
            rounds = []
            for _ in range(7):
                start = time.perf_counter()
                for _ in range(2000):
                    server.call(name, arguments)
                rounds.append((time.perf_counter() - start) / 2000)
            print(f"server.call {name} (a hit): median {statistics.median(rounds) * 1e6:.1f} us, "
                  f"fastest {min(rounds) * 1e6:.1f} us")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
