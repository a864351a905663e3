"""trial7 F5: ``job_ttl_seconds=-1`` was accepted and every job then read as not found at once;
``job_workers=0`` was taken silently as the default. Both are refused when the server is built,
naming the option and what it takes, like ``max_jobs_per_owner=0``. trial33 W19: a ttl past ten years
(``10**20``) was taken and every job call then failed (-32603: too large for SQLite's integers), and
``1e300`` made tasks answer a 303-digit ttl; trial35 Y9: ``1e-300`` made every task answer ``"ttl": 0``."""

from __future__ import annotations

import asyncio
import math
from fractions import Fraction
from pathlib import Path

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import ConfigurationError


# 10**400 and Fraction(10**400), past a float's range: float() raised OverflowError (review r21 N1).
@pytest.mark.parametrize("ttl", [-1, 0, math.inf, math.nan, "60", True, 10**20, 1e300, 315_576_001, 1e-300, 0.0004,
                                 10**400, Fraction(10**400)])
def test_a_job_ttl_that_is_not_a_positive_number_is_refused(tmp_path: Path, ttl: object) -> None:
    with pytest.raises(ConfigurationError, match=r"job_ttl_seconds must be a positive number of seconds"):
        MCPServer("ttl", state_dir=str(tmp_path), job_ttl_seconds=ttl)  # type: ignore[arg-type]


@pytest.mark.parametrize("option", ["job_workers", "workers"])
@pytest.mark.parametrize("value", [0, -2, 1.5, True])
def test_a_pool_of_no_workers_is_refused(tmp_path: Path, option: str, value: object) -> None:
    with pytest.raises(ConfigurationError, match=rf"^{option} must be a number of (threads|jobs run at once) >= 1, "
                       r"or None for (the default|as many as workers), not "):
        MCPServer("pool", state_dir=str(tmp_path), **{option: value})  # type: ignore[arg-type]


def test_usable_values_and_the_defaults_are_taken(tmp_path: Path) -> None:
    server = MCPServer("fine", state_dir=str(tmp_path), job_ttl_seconds=0.5, job_workers=1, workers=2)
    MCPServer("a-decade", state_dir=str(tmp_path / "ten"), job_ttl_seconds=315_576_000)  # ten years: the most
    assert (server.core.job_workers, server.core.workers) == (1, 2)
    default = MCPServer("default", state_dir=str(tmp_path / "d"))
    assert default.core.job_workers == default.core.workers >= 1


def test_a_numpy_integer_ttl_is_taken_as_a_numpy_float_is(tmp_path: Path) -> None:
    """trial36 Z13: ``np.int64(60)`` was refused as not "a positive number of seconds", ``np.float64(60.0)``
    taken; a job then keeps its ttl in its JSON record, which takes no numpy number."""
    np = pytest.importorskip("numpy")
    server = MCPServer("np-ttl", state_dir=str(tmp_path), job_ttl_seconds=np.int64(60))

    @server.async_tool()
    def twice(x: float) -> float:
        """Twice x."""
        return 2 * x

    async def run_one() -> object:
        started = await server.call_async("twice", {"x": 2})
        async with asyncio.timeout(10):  # the job's record (its ttl inside) is written as JSON when it ends
            while True:
                polled = await server.call_async("get_job_result", {"job_id": started.structured["job_id"]})
                if polled.structured["status"] != "running":
                    return polled.structured
                await asyncio.sleep(0.01)

    assert asyncio.run(run_one())["result"] == 4.0  # type: ignore[index]
    MCPServer("np-float", state_dir=str(tmp_path / "f"), job_ttl_seconds=np.float64(60.0))
    with pytest.raises(ConfigurationError, match="job_ttl_seconds must be a positive number"):
        MCPServer("np-neg", state_dir=str(tmp_path / "n"), job_ttl_seconds=np.int64(-1))


def test_a_state_dir_holding_a_nul_byte_is_refused_at_construction(tmp_path: Path) -> None:
    """trial36 Z11: the server started; every job and cached call was then "Internal error"."""
    for state_dir in (f"{tmp_path}/a\0b", tmp_path / "a\0b"):
        with pytest.raises(ConfigurationError, match=r"state_dir .* holds a NUL byte") as refused:
            MCPServer("sdn", state_dir=state_dir)  # type: ignore[arg-type]
        assert "\n" not in str(refused.value)


def test_a_notebook_state_dir_holding_a_nul_byte_is_refused_by_config_and_by_export() -> None:
    """trial36 Z11: ``%config NanohubMCP.state_dir = '/tmp/a\\x00b'`` was exported into a script that started and
    failed every job call."""
    import nbformat
    from traitlets import TraitError

    from nanohubmcp.errors import NanohubMCPError
    from nanohubmcp.jupyter.config import NanohubMCP
    from nanohubmcp.jupyter.translate import translate

    with pytest.raises(TraitError, match=r"NanohubMCP\.state_dir .* holds a NUL byte"):
        NanohubMCP(state_dir="/tmp/a\0b")
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("%config NanohubMCP.state_dir = '/tmp/a\\x00b'"),
                      nbformat.v4.new_code_cell("%%mcp_tool\ndef add(a: float) -> float:\n    return a\n")]
    with pytest.raises(NanohubMCPError, match=r"cell 1 .*state_dir .* holds a NUL byte") as refused:
        translate(notebook, source="nul.ipynb", format_code=False)
    assert "\n" not in str(refused.value)
