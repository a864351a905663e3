"""Review r33 F1: ``_Table.page`` read the name map, built the listing from it, then stored that listing in the
table's cache; a re-definition (a notebook cell's thread) replaced the map and *then* emptied the cache. When the
put landed between the read and the store, the listing of the OLD map was stored as the NEW table's: the client's
re-list after ``notifications/tools/list_changed`` got the old definition, and kept getting it until the next
change (real server, a thread listing in a loop: 1 stale listing in 100 with 3,000 tools; 12 in 80 at a 10 us
switch interval). Now the map and the listings cached of it are one snapshot, replaced together: a listing built
from an old map lands in the old map's cache, which no later page reads.

Deterministic here: the put is made while the listing is being built (from inside the first entry's
``to_wire``, where another thread's put may land), with a real server and the in-memory client; a second test runs
the review's thread race, bounded."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.testing import in_memory

pytestmark = pytest.mark.timeout(120)

ROUNDS = 300
"""Re-definitions raced: about 1 in 60 was left stale before the fix, so 300 fail it all but always."""


def define(server: MCPServer, name: str, description: str) -> None:
    def tool(x: int) -> int:
        return x

    tool.__name__, tool.__doc__ = name, description
    server.tool()(tool)


def descriptions(client: Any) -> dict[str, str]:
    return {tool["name"]: tool.get("description") for tool in client.list_tools()}


def test_a_put_landing_while_a_list_is_built_leaves_the_next_list_with_the_new_definition() -> None:
    server = MCPServer("race", provenance=False)
    define(server, "first", "version 0")
    define(server, "second", "version 0")
    trap = server.core.registry.tools.get("first")
    assert trap is not None
    built = trap.to_wire
    puts: list[str] = []

    def to_wire(version: str) -> dict[str, Any]:
        if not puts:  # the listing has read the map: a cell re-defines "second" now
            puts.append(version)
            define(server, "second", "version 1")
        return built(version)

    trap.to_wire = to_wire  # type: ignore[method-assign]
    with in_memory(server) as client:
        first = descriptions(client)
        assert puts, "the listing was built without the trap"
        assert first["second"] in ("version 0", "version 1")  # either is right for a list racing the change
        assert descriptions(client)["second"] == "version 1"  # the list after the change: the new definition
        assert descriptions(client)["second"] == "version 1"


@pytest.fixture
def short_switch_interval() -> Iterator[None]:
    """A 10 us switch interval: the threads interleave inside a page's build (the review's widened window)."""
    was = sys.getswitchinterval()
    sys.setswitchinterval(0.00001)
    yield
    sys.setswitchinterval(was)


def test_a_list_racing_re_definitions_on_another_thread_never_stays_stale(short_switch_interval: None) -> None:
    server = MCPServer("race", provenance=False)
    for k in range(600):
        define(server, f"t{k}", f"tool {k} " + "doc " * 50)
    stop = threading.Event()
    stale: list[tuple[int, dict[str, str]]] = []
    with in_memory(server) as client:
        def lists() -> None:  # as a client does on each list_changed
            while not stop.is_set():
                client.list_tools()

        lister = threading.Thread(target=lists)
        lister.start()
        try:
            for i in range(ROUNDS):
                define(server, "t0", f"version {i}")
                define(server, "t1", f"version {i}")
                listed = descriptions(client)  # after both puts: never the old ones
                if (listed["t0"], listed["t1"]) != (f"version {i}", f"version {i}"):
                    stale.append((i, {"t0": listed["t0"], "t1": listed["t1"]}))
        finally:
            stop.set()
            lister.join(30)
    assert not stale, f"{len(stale)} of {ROUNDS} listings after both puts were stale, e.g. {stale[:3]}"
