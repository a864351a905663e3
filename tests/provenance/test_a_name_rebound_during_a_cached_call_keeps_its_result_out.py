"""A cached call's result is stored only under a key that describes what the call read (a fresh-user
trial, W1: the key was made from the globals' values when the call started, the tool read them when
it ran; a data cell run again while a long cached call ran stored the new data's result under the old
data's key, so binding the name to the old numbers again answered the wrong result as a hit, from
``cache.sqlite3`` across restarts too).

A call during which a global name its key covers was bound anew (data, or a helper function defined
again) answers its result, marked ``"stored": false``, and keeps nothing; the steps are ordered with
events, never with sleeps.
"""

from __future__ import annotations

import threading
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")

CACHE = "io.nanohub/cache"
WAIT = 10.0

CELLS = '''
def slow_sum() -> float:
    """The data's sum, after the test lets it go on."""
    STARTED.set()
    GATE.wait(WAIT)
    return float(ARR.sum())


def scale(x: float) -> float:
    return x * 2


def slow_scaled(x: float) -> float:
    """x through the helper, after the test lets it go on."""
    STARTED.set()
    GATE.wait(WAIT)
    return scale(x)
'''


@pytest.fixture
def cells(tmp_path: Path) -> Iterator[tuple[dict[str, Any], Any]]:
    """A notebook's namespace (cells run in it) and a server with its two tools cached."""
    from nanohubmcp import MCPServer

    namespace = types.ModuleType("cells").__dict__
    namespace.update(STARTED=threading.Event(), GATE=threading.Event(), WAIT=WAIT, ARR=np.array([1.0]))
    exec(CELLS, namespace)
    server = MCPServer("race", state_dir=str(tmp_path / "state"))
    server.tool(cache=True)(namespace["slow_sum"])
    server.tool(cache=True)(namespace["slow_scaled"])
    server.start(port=0)
    try:
        yield namespace, server
    finally:
        namespace["GATE"].set()
        server.stop()


def call_while(namespace: dict[str, Any], server: Any, name: str, arguments: dict[str, Any],
               meanwhile: Callable[[], None]) -> dict[str, Any]:
    """Call ``name`` on a thread; once the tool runs, do ``meanwhile``, then let the tool go on."""
    namespace["STARTED"].clear()
    namespace["GATE"].clear()
    answers: list[dict[str, Any]] = []
    caller = threading.Thread(target=lambda: answers.append(server.call(name, arguments)))
    caller.start()
    assert namespace["STARTED"].wait(WAIT)
    meanwhile()
    namespace["GATE"].set()
    caller.join(WAIT)
    assert answers, "the call did not answer"
    return answers[0]


def answer(result: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return result["content"][0]["text"], result["_meta"].get(CACHE)


def test_data_bound_anew_while_the_call_runs_is_answered_and_not_stored(
        cells: tuple[dict[str, Any], Any]) -> None:
    namespace, server = cells

    def new_data() -> None:
        namespace["ARR"] = np.array([2.0])  # the data cell run again while the call runs

    assert answer(call_while(namespace, server, "slow_sum", {}, new_data)) == ("2.0", {"hit": False, "stored": False})
    namespace["ARR"] = np.array([1.0])  # the old numbers again: their own result, never 2.0
    assert answer(server.call("slow_sum", {})) == ("1.0", {"hit": False})
    assert answer(server.call("slow_sum", {})) == ("1.0", {"hit": True})
    namespace["ARR"] = np.array([2.0])  # nothing was kept for these: they run
    assert answer(server.call("slow_sum", {})) == ("2.0", {"hit": False})
    assert answer(server.call("slow_sum", {})) == ("2.0", {"hit": True})


def test_a_helper_defined_again_while_the_call_runs_is_answered_and_not_stored(
        cells: tuple[dict[str, Any], Any]) -> None:
    namespace, server = cells

    def helper_cell_run_again() -> None:
        exec("def scale(x: float) -> float:\n    return x * 10\n", namespace)

    assert answer(call_while(namespace, server, "slow_scaled", {"x": 1}, helper_cell_run_again)) == (
        "10.0", {"hit": False, "stored": False})
    exec("def scale(x: float) -> float:\n    return x * 2\n", namespace)  # the old helper's cell again
    assert answer(server.call("slow_scaled", {"x": 1})) == ("2.0", {"hit": False})
    assert answer(server.call("slow_scaled", {"x": 1})) == ("2.0", {"hit": True})


def test_a_call_nothing_was_rebound_during_is_stored(cells: tuple[dict[str, Any], Any]) -> None:
    namespace, server = cells
    assert answer(call_while(namespace, server, "slow_sum", {}, lambda: None)) == ("1.0", {"hit": False})
    assert answer(server.call("slow_sum", {})) == ("1.0", {"hit": True})


def test_a_call_running_while_the_cache_is_cleared_keeps_nothing(cells: tuple[dict[str, Any], Any]) -> None:
    """``clear_cache()`` says the entries are of data the key does not cover (changed in place, a file):
    a call that ran across it may have read the old data, so its result is answered and not stored."""
    namespace, server = cells

    def changed_in_place_then_cleared() -> None:
        namespace["ARR"][0] = 5.0  # in place: the key does not see it (the docs: clear afterwards)
        server.clear_cache()

    assert answer(call_while(namespace, server, "slow_sum", {}, changed_in_place_then_cleared)) == (
        "5.0", {"hit": False, "stored": False})
    assert answer(server.call("slow_sum", {})) == ("5.0", {"hit": False})
    assert answer(server.call("slow_sum", {})) == ("5.0", {"hit": True})
    # its own entries cleared keep a running call out; another tool's entries cleared say nothing of its data
    # (trial38 T4: clears were counted, not named, and that call kept nothing)
    for cleared, meta in (("slow_scaled", {"hit": False, "stored": False}), ("slow_sum", {"hit": False})):
        running = call_while(namespace, server, "slow_scaled", {"x": 3}, lambda name=cleared: server.clear_cache(name))
        assert answer(running) == ("6.0", meta), cleared
    assert answer(server.call("slow_scaled", {"x": 3})) == ("6.0", {"hit": True})
