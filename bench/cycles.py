#!/usr/bin/env python3
"""Import cycles between the modules of ``nanohubmcp``, counting imports under ``if TYPE_CHECKING:``.

    .venv/bin/python bench/cycles.py            # the strongly connected groups and the count of simple cycles
    .venv/bin/python bench/cycles.py --list     # also each simple cycle (up to --limit)

The import graph is the one import-linter checks (grimp, every ``import`` statement found in the
source, lazy and type-only ones included). A *group* is a strongly connected component of more
than one module (every module of it reaches every other); a *simple cycle* is a closed import path
visiting no module twice (Johnson's enumeration, stopped at ``--limit``). The test
``tests/packaging/test_no_import_cycles.py`` asserts there are none.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator


def graph() -> dict[str, set[str]]:
    """``module -> modules it imports`` within ``nanohubmcp``, type-only imports included."""
    import grimp

    g = grimp.build_graph("nanohubmcp", exclude_type_checking_imports=False, cache_dir=None)
    return {m: {i for i in g.find_modules_directly_imported_by(m) if i.startswith("nanohubmcp")} for m in g.modules}


def groups(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, ())))))
                    advanced = True
                    break
                if nxt in on:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def simple_cycles(edges: dict[str, set[str]], group: list[str], limit: int) -> Iterator[list[str]]:
    """Simple cycles within one group: each found once, from its smallest module (limited search)."""
    order = sorted(group)
    members = set(group)
    found = 0
    for i, start in enumerate(order):
        allowed = set(order[i:])
        path = [start]
        seen = {start}
        iters = [iter(sorted(edges[start] & members & allowed))]
        while iters:
            nxt = next(iters[-1], None)
            if nxt is None:
                iters.pop()
                seen.discard(path.pop())
                continue
            if nxt == start:
                yield list(path)
                found += 1
                if found >= limit:
                    return
            elif nxt not in seen:
                path.append(nxt)
                seen.add(nxt)
                iters.append(iter(sorted(edges[nxt] & members & allowed)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--list", action="store_true", help="print every simple cycle")
    ap.add_argument("--limit", type=int, default=100_000, help="stop counting simple cycles at this many per group")
    args = ap.parse_args()
    edges = graph()
    comps = groups(edges)
    total = 0
    for comp in comps:
        cycles = list(simple_cycles(edges, comp, args.limit))
        total += len(cycles)
        print(f"group of {len(comp)} modules, {len(cycles)} simple cycles:")
        for m in comp:
            print(f"  {m}")
        if args.list:
            for c in cycles:
                print("    " + " -> ".join([*c, c[0]]))
    print(f"{len(comps)} groups, {total} simple cycles")
    return 1 if comps else 0


if __name__ == "__main__":
    sys.exit(main())
