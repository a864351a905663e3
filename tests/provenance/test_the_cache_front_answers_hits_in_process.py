"""The result cache's in-process front (``cache_front``), through a real server over HTTP: a hit
it answers is the store's answer to the byte; the store stays the truth (an entry another process
dropped is answered for at most ``CHECK_SECONDS``); a tool registered again, the store's
invalidation and an entry's expiry empty it; one principal's entries never answer another; it
holds at most its bounds of entries and bytes.

Calls are sessionless ``POST /mcp`` with a bearer token per principal (alice, bob), read as raw
bytes. "Another process" is a second connection to the state directory's ``cache.sqlite3``.
"""

from __future__ import annotations

import http.client
import json
import sqlite3
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import serve

from nanohubmcp import MCPServer, StaticTokenVerifier
from nanohubmcp.server.provenance import cache_front

CACHE = "io.nanohub/cache"
FACTOR = 2  # read by the tool "scaled" by global name: bound anew by a test
TOKENS = {"alice-token": "alice", "bob-token": "bob"}


class Served:
    def __init__(self, server: MCPServer, url: str, state: Path, runs: list[str]) -> None:
        self.server, self.url, self.state, self.runs = server, url, state, runs

    def post(self, name: str, arguments: dict[str, Any], token: str = "alice-token") -> bytes:
        """The raw response body of a ``tools/call`` (request id 7 every time)."""
        parts = urllib.parse.urlsplit(self.url)
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        try:
            body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                               "params": {"name": name, "arguments": arguments}})
            connection.request("POST", parts.path + "mcp", body, {
                "Content-Type": "application/json", "Accept": "application/json",
                "Authorization": f"Bearer {token}",
                "MCP-Protocol-Version": "2025-11-25"})
            response = connection.getresponse()
            data = response.read()
            assert response.status == 200, data
            return data
        finally:
            connection.close()

    def call(self, name: str, arguments: dict[str, Any], token: str = "alice-token") -> dict[str, Any]:
        result: dict[str, Any] = json.loads(self.post(name, arguments, token))["result"]
        return result

    def drop_rows_elsewhere(self) -> int:
        """Delete every stored result through a connection of its own (what another process does)."""
        with sqlite3.connect(self.state / "cache.sqlite3") as db:
            return db.execute("DELETE FROM entries").rowcount


def define(server: MCPServer, runs: list[str]) -> None:
    @server.tool(cache=True)
    def profile(depth: float, label: str = "x") -> dict[str, Any]:
        """A result with what JSON writers differ on: non-ASCII, a lone surrogate, big and small numbers."""
        runs.append("profile")
        return {"label": label + " é ✓ \ud800", "depth": depth, "points": [0.1, 1e-300, 2**70, -0.0, [True, None]],
                "nested": {"z": 1, "a": {"b": "c"}}}

    @server.tool(cache=True, cache_ttl=1)
    def brief(n: int) -> int:
        """Cached for one second."""
        runs.append("brief")
        return n * 2

    @server.tool(cache=True)
    def scaled(n: int) -> int:
        """n times the module's FACTOR."""
        return n * FACTOR

    @server.tool(cache="shared")
    def constant(n: int) -> int:
        """One result for every caller."""
        runs.append("constant")
        return n + 1


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    runs: list[str] = []
    state = tmp_path / "state"
    server = MCPServer("front", state_dir=str(state), provenance=False, auth=StaticTokenVerifier(TOKENS))
    define(server, runs)
    with serve(server) as url:
        yield Served(server, url, state, runs)


def test_a_front_hit_is_the_store_hit_to_the_byte(served: Served, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_front, "CHECK_SECONDS", 3600.0)  # the front trusts its entries for the test
    arguments = {"depth": 2.5}
    miss = served.post("profile", arguments)
    assert json.loads(miss)["result"]["_meta"][CACHE] == {"hit": False}
    from_store = served.post("profile", arguments)  # read from cache.sqlite3 (and held in front)
    assert served.drop_rows_elsewhere() == 1
    from_front = served.post("profile", arguments)  # the store has nothing now: only the front can answer
    assert json.loads(from_front)["result"]["_meta"][CACHE] == {"hit": True}
    assert from_front == from_store
    assert served.runs == ["profile"]
    # (the tool's lone surrogate is sent as U+FFFD, the same from the front and the store: trial33 W20)
    assert json.loads(from_front)["result"]["structuredContent"]["label"] == "x é ✓ \ufffd"
    # The store stays the truth: once the entry is due for a check, the store's answer (nothing) wins.
    monkeypatch.setattr(cache_front, "CHECK_SECONDS", 0.0)
    assert served.call("profile", arguments)["_meta"][CACHE] == {"hit": False}
    assert served.runs == ["profile", "profile"]


def test_a_held_entry_answers_what_the_store_holds_once_checked(served: Served,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_front, "CHECK_SECONDS", 3600.0)
    for _ in range(3):
        assert served.call("profile", {"depth": 4})["structuredContent"]["depth"] == 4
    with sqlite3.connect(served.state / "cache.sqlite3") as db:  # another process stored a newer result
        db.execute("UPDATE entries SET result = replace(result, '\"depth\":4', '\"depth\":5')")
    assert served.call("profile", {"depth": 4})["structuredContent"]["depth"] == 4  # held, not checked yet
    monkeypatch.setattr(cache_front, "CHECK_SECONDS", 0.0)
    checked = served.post("profile", {"depth": 4})
    assert json.loads(checked)["result"]["structuredContent"]["depth"] == 5
    monkeypatch.setattr(cache_front, "CHECK_SECONDS", 3600.0)
    assert served.post("profile", {"depth": 4}) == checked  # held again, as the store said
    assert served.runs == ["profile"]


def test_another_spelling_of_the_arguments_is_a_front_entry_of_its_own(served: Served,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_front, "CHECK_SECONDS", 3600.0)
    served.call("profile", {"depth": 3})
    spellings = [{"depth": 3}, {"depth": 3.0}, {"depth": 3, "label": "x"}, {"label": "x", "depth": 3}]
    for arguments in spellings:  # each read from the store once, then held
        assert served.call("profile", arguments)["_meta"][CACHE] == {"hit": True}
    served.drop_rows_elsewhere()
    answers = [served.post("profile", arguments) for arguments in spellings]
    assert all(json.loads(a)["result"]["_meta"][CACHE] == {"hit": True} for a in answers)
    assert len(set(answers)) == 1
    assert served.call("profile", {"depth": 3, "label": "y"})["_meta"][CACHE] == {"hit": False}


def test_registering_the_tool_again_or_invalidating_empties_the_front(served: Served,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_front, "CHECK_SECONDS", 3600.0)
    for _ in range(3):
        served.call("profile", {"depth": 1})
    assert served.runs == ["profile"]
    define(served.server, served.runs)  # a notebook cell run again: the same code, registered again
    assert served.call("profile", {"depth": 1})["_meta"][CACHE] == {"hit": False}
    assert served.call("profile", {"depth": 1})["_meta"][CACHE] == {"hit": True}
    assert served.call("profile", {"depth": 1})["_meta"][CACHE] == {"hit": True}
    served.server.core.result_cache.invalidate("profile")  # the store's own invalidation
    assert served.call("profile", {"depth": 1})["_meta"][CACHE] == {"hit": False}
    assert served.runs == ["profile"] * 3
    for _ in range(2):
        served.call("profile", {"depth": 1})
    assert served.server.clear_cache() == 1  # every tool's entries
    assert served.call("profile", {"depth": 1})["_meta"][CACHE] == {"hit": False}
    assert served.runs == ["profile"] * 4


def test_clearing_a_name_that_is_no_tool_is_refused(served: Served) -> None:
    """trial7 F7: ``clear_cache("typo")`` returned 0 like a real tool without entries, so a
    misspelt name left stale results in place unnoticed; now a ValueError names the cached tools.
    A registered tool without entries still answers 0, and the entries are untouched."""
    served.call("profile", {"depth": 2})
    with pytest.raises(ValueError, match=r"no tool 'profle' on this server; the tools with a result cache: .*'prof"):
        served.server.clear_cache("profle")
    assert served.call("profile", {"depth": 2})["_meta"][CACHE] == {"hit": True}
    assert served.server.clear_cache("scaled") == 0
    assert served.server.clear_cache("profile") == 1


def test_a_constant_the_tool_reads_bound_anew_bypasses_the_front(served: Served,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_front, "CHECK_SECONDS", 3600.0)
    for _ in range(3):
        assert served.call("scaled", {"n": 5})["content"][0]["text"] == "10"
    monkeypatch.setitem(globals(), "FACTOR", 3)  # a notebook cell assigning the constant anew
    again = served.call("scaled", {"n": 5})
    assert (again["content"][0]["text"], again["_meta"][CACHE]) == ("15", {"hit": False})


def test_an_expired_entry_is_never_answered(served: Served, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_front, "CHECK_SECONDS", 3600.0)
    assert served.call("brief", {"n": 4})["_meta"][CACHE] == {"hit": False}
    stored = time.time()  # the entry expires at most cache_ttl (1 s) from now
    assert served.call("brief", {"n": 4})["_meta"][CACHE] == {"hit": True}  # held in front
    while time.time() < stored + 1.05:  # wait for the clock to pass the expiry
        time.sleep(0.05)
    assert served.call("brief", {"n": 4})["_meta"][CACHE] == {"hit": False}
    assert served.runs == ["brief", "brief"]


def test_one_principals_entries_never_answer_another(served: Served, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_front, "CHECK_SECONDS", 3600.0)
    for _ in range(3):
        assert served.call("profile", {"depth": 9})["structuredContent"]["depth"] == 9
    assert served.call("profile", {"depth": 9}, token="bob-token")["_meta"][CACHE] == {"hit": False}
    assert served.runs == ["profile", "profile"]
    for _ in range(3):  # a shared tool's one entry answers both
        served.call("constant", {"n": 1})
    assert served.call("constant", {"n": 1}, token="bob-token")["_meta"][CACHE] == {"hit": True}
    assert served.runs == ["profile", "profile", "constant"]


def test_the_front_holds_at_most_its_bounds(served: Served, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_front, "CHECK_SECONDS", 3600.0)
    front = served.server.core.result_cache.front
    monkeypatch.setattr(front, "max_entries", 3)
    for n in range(8):  # each: a miss, then a hit read from the store (and held)
        served.call("constant", {"n": n})
        served.call("constant", {"n": n})
        assert front.total()[0] <= 3
    assert front.total()[0] == 3
    served.drop_rows_elsewhere()  # the three most recently used answer; the others were dropped
    assert [served.call("constant", {"n": n})["_meta"][CACHE]["hit"] for n in (7, 6, 5, 0)] == [True] * 3 + [False]
    monkeypatch.setattr(front, "max_entries", 100)
    monkeypatch.setattr(front, "max_bytes", 8 * 1024)  # a profile entry is ~1.2 KiB: about six fit
    front.clear()
    for depth in range(20):
        served.call("profile", {"depth": depth})
        served.call("profile", {"depth": depth})
        assert front.total()[1] <= 8 * 1024
    assert 4 <= front.total()[0] < 20


def test_a_tool_removed_and_defined_anew_answers_nothing_from_the_earlier(served: Served,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_front, "CHECK_SECONDS", 3600.0)

    @served.server.tool(name="scale", cache=True)
    def double(n: int) -> int:
        """Twice n."""
        return n * 2

    for _ in range(3):
        assert served.call("scale", {"n": 5})["content"][0]["text"] == "10"
    served.server.remove_tool("scale")  # no invalidation: the next definition is another tool

    @served.server.tool(name="scale", cache=True)
    def triple(n: int) -> int:
        """Three times n."""
        return n * 3

    again = served.call("scale", {"n": 5})
    assert (again["content"][0]["text"], again["_meta"][CACHE]) == ("15", {"hit": False})
