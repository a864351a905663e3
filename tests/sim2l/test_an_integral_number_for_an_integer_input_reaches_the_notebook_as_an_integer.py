"""A Sim2L ``Integer`` input given as an integral JSON number written with a fraction or an exponent
(``2.0``, ``1e1``: integers by JSON Schema, as clients and models send them) reaches the notebook as an
``int``, as a Python tool's ``int`` parameter and a Rappture ``<integer>`` receive it, and is the same
run as ``2``.

Found by a fresh-user trial (trial39 R3): ``{"points": 2.0}`` passed the schema, reached the notebook as
``points = 2.0`` and the run failed in its cell (``TypeError: 'float' object cannot be interpreted as an
integer``, REST 500). A real kernel runs the notebook once.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.sources.sim2l.notebook import read_sim2l
from nanohubmcp.sources.sim2l.values import prepare

COOLING = Path(__file__).resolve().parents[2] / "examples" / "sim2l" / "cooling" / "cooling.ipynb"


def test_an_integral_float_is_prepared_as_an_int() -> None:
    pytest.importorskip("simtool")
    spec = read_sim2l(str(COOLING))
    for given in (2.0, 1e1, 2):
        value = prepare(spec, {"points": given}).parameters["points"]
        assert value == int(given)
        assert type(value) is int


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_points_given_as_2_0_runs_and_is_the_run_of_2(tmp_path: Path) -> None:
    pytest.importorskip("papermill")
    pytest.importorskip("simtool")
    server = MCPServer("cool-int", state_dir=str(tmp_path / "state"))
    server.add_sim2l(str(COOLING))
    with serve(server) as url:
        first = httpx.post(url + "tools/cooling", json={"points": 2.0}, timeout=200)
        assert first.status_code == 200, first.text
        assert len(first.json()["outputs"]["time"]) == 2
        again = httpx.post(url + "tools/cooling", json={"points": 2}, timeout=200)
        assert again.status_code == 200, again.text
        assert again.json()["cached"] is True
