"""A Sim2L's ``cell_timeout`` takes any number of seconds above 0, fractions kept (the one rule of every duration):
``2.5``, ``Fraction(121, 4)``, ``0.5``. nbclient's ``timeout`` takes whole seconds (a traitlets ``Integer``): the
server started with ``--cell-timeout 2.5`` and then answered every call 500 (``TraitError: The 'timeout' trait of a
PapermillNotebookClient instance expected an int, not the float 2.5``). Now a quick run answers 200, a cell past a
fractional limit 504 (``ToolTimeout``), and a sub-second limit is kept: a cell sleeping 0.8 s is stopped by a
0.5 s limit (rounded up to 1 s, it would have finished and the next cell been named)."""

from __future__ import annotations

import concurrent.futures
import json
from fractions import Fraction
from pathlib import Path

import pytest
from json_posts import post_json
from sim2l.cooling_variant import COOLING
from support import serve

from nanohubmcp import MCPServer

pytestmark = pytest.mark.slow


def sleeping_first(folder: Path, seconds: float) -> Path:
    """The cooling Sim2L with a cell sleeping ``seconds`` before its imports: cell 3 once run (after
    ``from __future__ ...`` and ``DESCRIPTION``), ahead of simtool's import, which alone may take seconds."""
    notebook = json.loads(COOLING.read_text())
    imports = next(i for i, c in enumerate(notebook["cells"]) if "from simtool import DB" in "".join(c["source"]))
    notebook["cells"].insert(imports, {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                                       "source": f"import time\ntime.sleep({seconds})"})
    path = folder / f"sleep{seconds}" / "cooling.ipynb"
    path.parent.mkdir()
    path.write_text(json.dumps(notebook))
    return path


def past(tool: str, limit: str) -> str:
    return (f"the Sim2L tool '{tool}' did not finish within {limit} s in code cell 3 (`import time`) "
            "(its cell_timeout, a cell's limit; "
            "raise it with cell_timeout= or --cell-timeout, inf for no limit); its run was stopped")


@pytest.mark.timeout(300)
def test_fractional_cell_timeouts_answer_a_run_and_stop_a_cell_at_their_fraction(tmp_path: Path) -> None:
    pytest.importorskip("papermill")
    pytest.importorskip("simtool")
    server = MCPServer("sim2l-fractional-cell-timeout", state_dir=str(tmp_path / "state"))
    # 30.25 s: simtool's import, one cell, takes seconds on a busy machine
    server.add_sim2l(str(COOLING), name="quick", cell_timeout=Fraction(121, 4))
    server.add_sim2l(str(sleeping_first(tmp_path, 600)), name="long", cell_timeout=2.5)
    server.add_sim2l(str(sleeping_first(tmp_path, 0.8)), name="brief", cell_timeout=0.5)
    with serve(server) as url, concurrent.futures.ThreadPoolExecutor(3) as pool:
        calls = {name: pool.submit(post_json, url + f"tools/{name}", {"points": 5}, 180) for name in ("quick", "long",
                                                                                                 "brief")}
        answers = {name: call.result(timeout=200) for name, call in calls.items()}
    status, body = answers["quick"]
    assert status == 200, body  # was 500: TraitError
    assert body["outputs"]["final_temperature"] > 293, body
    assert answers["long"] == (504, {"error": past("long", "2.5")})  # was 500
    # the 0.8 s cell stopped at 0.5 s (a limit rounded up to 1 s let it finish: the imports' cell, 4, was named)
    assert answers["brief"] == (504, {"error": past("brief", "0.5")})  # was 500
