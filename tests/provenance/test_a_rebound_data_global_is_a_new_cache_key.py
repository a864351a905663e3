"""A cached tool's key covers the data it reads by global name, not only plain constants (a fresh-user
trial: a notebook's data cell run again — ``COEFFS = np.array([10.0, 20.0])``, a new DataFrame, an
instance, a ``Fraction`` — left the key as it was, since only the value's type was hashed, and the tool
answered from the old data, across kernel restarts too; so did a script whose DataFrame is read from a
file at import, restarted after the file changed).

A value that is not plain counts by its pickle's SHA-256 (an array's buffer hashed in place); one that
cannot be pickled counts by its identity in this process only.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import types
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")

CACHE = "io.nanohub/cache"

CELLS = '''
class P:
    def __init__(self, v):
        self.v = v

def calc(x: float) -> dict:
    """cached calc"""
    return {"arr": float(COEFFS.sum() * x), "df": float(DF.x.sum() * x), "param": PARAM.v * x,
            "fr": float(FR * x), "long": float(sum(LONG) * x)}
'''


def test_data_bound_anew_in_a_cell_is_a_new_key_and_the_same_data_again_is_a_hit(tmp_path: Path) -> None:
    from nanohubmcp import MCPServer

    cells = types.ModuleType("cells")
    namespace = cells.__dict__
    exec(CELLS, namespace)
    P = namespace["P"]
    namespace.update(COEFFS=np.array([1.0, 2.0]), DF=pd.DataFrame({"x": [1, 2]}), PARAM=P(1), FR=Fraction(1, 3),
                     LONG=[1.0] * 100_000)
    server = MCPServer("data", state_dir=str(tmp_path / "state"))
    server.tool(cache=True)(namespace["calc"])
    server.start(port=0)
    try:
        def call() -> tuple[dict[str, float], bool]:
            result = server.call("calc", {"x": 1})
            return json.loads(result.text), result["_meta"][CACHE]["hit"]

        first = {"arr": 3.0, "df": 3.0, "param": 1.0, "fr": 1 / 3, "long": 100_000.0}
        assert call() == (first, False)
        assert call() == (first, True)
        namespace["COEFFS"] = np.array([10.0, 20.0])  # the data cell run again, with new numbers
        assert call() == ({**first, "arr": 30.0}, False)
        namespace["COEFFS"] = np.array([10.0, 20.0])  # run again, the same numbers: the same key
        assert call() == ({**first, "arr": 30.0}, True)
        namespace["COEFFS"] = np.array([[10.0], [20.0]])[:, 0]  # the same numbers, not contiguous
        assert call() == ({**first, "arr": 30.0}, True)
        namespace["DF"] = pd.DataFrame({"x": [100, 200]})
        assert call()[0]["df"] == 300.0
        namespace["PARAM"] = P(7)
        assert call()[0]["param"] == 7.0
        namespace["FR"] = Fraction(2, 3)
        assert call()[0]["fr"] == 2 / 3
        namespace["LONG"] = [2.0] * 100_000  # a plain value too long for its repr to be the key
        assert call() == ({"arr": 30.0, "df": 300.0, "param": 7.0, "fr": 2 / 3, "long": 200_000.0}, False)
    finally:
        server.stop()


def test_a_value_that_cannot_be_pickled_counts_by_its_identity(tmp_path: Path) -> None:
    from nanohubmcp import MCPServer

    cells = types.ModuleType("locked")
    namespace = cells.__dict__
    exec("def guarded(x: int) -> int:\n    '''Under a lock.'''\n    with LOCK:\n        return x + 1\n", namespace)
    namespace["LOCK"] = threading.Lock()
    server = MCPServer("locked", state_dir=str(tmp_path / "state"))
    server.tool(cache=True)(namespace["guarded"])
    server.start(port=0)
    try:
        def hit() -> bool:
            return bool(server.call("guarded", {"x": 1})["_meta"][CACHE]["hit"])

        assert [hit(), hit()] == [False, True]
        namespace["LOCK"] = threading.Lock()  # another object: its results are not the old one's
        assert [hit(), hit()] == [False, True]
    finally:
        server.stop()


SCRIPT = '''
import json, sys
import pandas as pd
from nanohubmcp import MCPServer

DATA = pd.read_csv(sys.argv[2])
server = MCPServer("csv", state_dir=sys.argv[1])


@server.tool(cache=True)
def total(column: str) -> float:
    """The column's sum."""
    return float(DATA[column].sum())


server.start(port=0)
result = server.call("total", {"column": "x"})
print(json.dumps([float(result.text), result["_meta"]["io.nanohub/cache"]["hit"]]))
server.stop()
'''


def test_a_restarted_script_whose_data_file_changed_runs_again(tmp_path: Path) -> None:
    script, data = tmp_path / "app.py", tmp_path / "data.csv"
    script.write_text(SCRIPT)

    def run() -> list[Any]:
        done = subprocess.run([sys.executable, str(script), str(tmp_path / "state"), str(data)],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        answer: list[Any] = json.loads(done.stdout.strip().splitlines()[-1])
        return answer

    data.write_text("x\n1\n2\n")
    assert run() == [3.0, False]
    assert run() == [3.0, True]  # the same data: kept across the restart
    data.write_text("x\n100\n200\n")
    assert run() == [300.0, False]
