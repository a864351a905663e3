"""No import cycle anywhere in the package, imports under ``if TYPE_CHECKING:`` and lazy imports
counted (the graph import-linter checks, with type-only imports included): a module that names a
type from a module importing it is an arrow the wrong way; it should name a protocol of what it
uses instead. ``bench/cycles.py`` prints the groups and their simple cycles when this fails."""

from __future__ import annotations

import grimp


def strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """Groups of more than one module that all reach each other (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    groups: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        work = [(root, iter(sorted(edges[root])))]
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    break
                if child in on:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        groups.append(sorted(group))
    return groups


def test_the_import_graph_has_no_cycle_with_type_only_imports_counted() -> None:
    graph = grimp.build_graph("nanohubmcp", exclude_type_checking_imports=False, cache_dir=None)
    edges = {
        module: {m for m in graph.find_modules_directly_imported_by(module) if m.startswith("nanohubmcp")}
        for module in graph.modules
    }
    assert strongly_connected(edges) == []


def test_a_cycle_is_found() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert strongly_connected(edges) == [["a", "b", "c"]]
