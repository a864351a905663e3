"""A cached tool's key covers data its code reaches through a class, an instance, a partial or a
wrapper, not only through a global name (a fresh-user trial, W15: ``class Model: coeffs =
np.array(...)`` read as ``Model.coeffs``, a method, property or ``__call__`` of a module-level
instance reading a module-level array, a ``functools.partial`` of such a function and an
``lru_cache`` helper kept the old key when the data file changed, so a restarted server answered the
old result as a hit; so did a notebook whose data or class cell was run again).
"""

from __future__ import annotations

import json
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("pandas")

CACHE = "io.nanohub/cache"

SCRIPT = '''
import functools, json, sys
import numpy as np
import pandas as pd
from nanohubmcp import MCPServer

V = json.load(open(sys.argv[2]))
COEFFS = np.array(V)


class Model:
    name = "linear"  # a plain constant, the same in every run
    coeffs = np.array(V)  # data loaded at import
    table = pd.DataFrame({"x": V})

    def ipredict(self, x):
        return float(np.polyval(COEFFS, x))

    @property
    def total(self):
        return float(COEFFS.sum())

    def __call__(self, x):
        return float(np.polyval(COEFFS, x))

    def table_sum(self):
        return float(self.table["x"].sum())


class Derived(Model):
    pass


def poly(x, scale):
    return float(np.polyval(COEFFS, x)) * scale


@functools.lru_cache(maxsize=None)
def load():
    return COEFFS


M = Model()
D = Derived()
evaluate = functools.partial(poly, scale=1.0)
bound = M.ipredict
def class_attribute() -> float:
    return float(np.polyval(Model.coeffs, 2))


def class_frame() -> float:
    return float(Model.table["x"].sum())


def method() -> float:
    return M.ipredict(2)


def prop() -> float:
    return M.total


def call() -> float:
    return M(2)


def self_attribute() -> float:
    return M.table_sum()


def inherited() -> float:
    return D.ipredict(2)


def partial() -> float:
    return evaluate(2)


def lru_cache() -> float:
    return float(load().sum())


def bound_method() -> float:
    return bound(2)


TOOLS = (class_attribute, class_frame, method, prop, call, self_attribute, inherited, partial, lru_cache,
         bound_method)
server = MCPServer("reach", state_dir=sys.argv[1])
for tool in TOOLS:
    server.tool(cache=True, description="One way of reaching the data.")(tool)
server.start(port=0)
answers = {}
for tool in TOOLS:
    result = server.call(tool.__name__, {})
    answers[tool.__name__] = [float(result["content"][0]["text"]), result["_meta"][CACHE_KEY]["hit"]]
print(json.dumps(answers))
server.stop()
'''.replace("CACHE_KEY", repr(CACHE))


def test_a_restart_with_a_changed_data_file_runs_every_way_of_reaching_it_again(tmp_path: Path) -> None:
    script, data = tmp_path / "app.py", tmp_path / "v.json"
    script.write_text(SCRIPT)

    def run() -> dict[str, list[Any]]:
        done = subprocess.run([sys.executable, str(script), str(tmp_path / "state"), str(data)],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        answers: dict[str, list[Any]] = json.loads(done.stdout.strip().splitlines()[-1])
        return answers

    old = {"class_attribute": 2.0, "class_frame": 1.0, "method": 2.0, "prop": 1.0, "call": 2.0,
           "self_attribute": 1.0, "inherited": 2.0, "partial": 2.0, "lru_cache": 1.0, "bound_method": 2.0}
    new = {"class_attribute": 7.0, "class_frame": 4.0, "method": 7.0, "prop": 4.0, "call": 7.0,
           "self_attribute": 4.0, "inherited": 7.0, "partial": 7.0, "lru_cache": 4.0, "bound_method": 7.0}
    data.write_text("[1, 0]")
    assert run() == {name: [value, False] for name, value in old.items()}
    assert run() == {name: [value, True] for name, value in old.items()}  # the same data: kept across restarts
    data.write_text("[3, 1]")
    assert run() == {name: [value, False] for name, value in new.items()}


CELLS = '''
COEFFS = np.array([1.0, 0.0])


class Model:
    def predict(self, x):
        return float(np.polyval(COEFFS, x))


M = Model()


class Cfg:
    table = np.array([1.0, 2.0])


def predict(x: float) -> float:
    """Through an instance's method."""
    return M.predict(x)


def tsum() -> float:
    """Through a class attribute."""
    return float(Cfg.table.sum())
'''


def test_a_data_or_class_cell_run_again_in_a_notebook_is_a_new_key(tmp_path: Path) -> None:
    from nanohubmcp import MCPServer

    namespace = types.ModuleType("cells").__dict__
    namespace["np"] = np
    exec(CELLS, namespace)
    server = MCPServer("cells", state_dir=str(tmp_path / "state"))
    server.tool(cache=True)(namespace["predict"])
    server.tool(cache=True)(namespace["tsum"])
    server.start(port=0)
    try:
        def call(name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
            result = server.call(name, arguments)
            return result["content"][0]["text"], result["_meta"][CACHE]["hit"]

        assert [call("predict", {"x": 2}), call("predict", {"x": 2})] == [("2.0", False), ("2.0", True)]
        assert [call("tsum", {}), call("tsum", {})] == [("3.0", False), ("3.0", True)]
        namespace["COEFFS"] = np.array([3.0, 1.0])  # the data cell run again
        assert call("predict", {"x": 2}) == ("7.0", False)
        exec("class Cfg:\n    table = np.array([10.0, 20.0])\n", namespace)  # the class cell run again
        assert call("tsum", {}) == ("30.0", False)
        namespace["Cfg"].table = np.array([5.0])  # the class attribute assigned anew
        assert call("tsum", {}) == ("5.0", False)
        assert call("tsum", {}) == ("5.0", True)
    finally:
        server.stop()
