"""What ``%config NanohubMCP`` takes for a whole-number setting, the export writes as the kernel reads it (review r26
LOW-3, trial 50 F6): an infinity spelled ``float('inf')``, ``math.inf`` or ``np.inf`` is no limit where None is
(it was refused, without the hint ``tool_timeout`` gave); ``10**400`` is that int (refused as "more than any setting
takes"); a limit of 31 digits is written as the notebook wrote it (``1e30``, not
``1000000000000000019884624838656``); ``port = 19515.0`` is the int 19515 (it was written ``19515.0`` in the
script's usage and help). Each script is built (its ``MCPServer(...)`` made), as ``python start_mcp.py`` makes it."""

from __future__ import annotations

import nbformat
import pytest
from export_roundtrip import script_server

from nanohubmcp.errors import NanohubMCPError
from nanohubmcp.jupyter.translate import Script, translate


def exported(*lines: str) -> Script:
    made = nbformat.v4.new_notebook()
    settings = "\n".join(f"%config NanohubMCP.{line}" for line in lines)
    made.cells.append(nbformat.v4.new_code_cell(f"%load_ext nanohubmcp\n{settings}"))
    return translate(made, source="work/demo.ipynb", format_code=False)


@pytest.mark.parametrize("setting", ["max_inline_bytes", "max_result_bytes"])
@pytest.mark.parametrize("value", ["float('inf')", "float('Infinity')", "math.inf", "np.inf", "1e400"])
def test_an_infinity_is_no_limit_where_none_is(setting: str, value: str) -> None:
    script = exported(f"{setting} = {value}")
    assert f'server = MCPServer("demo", {setting}=None)' in script.text
    assert getattr(script_server(script.text).core.result_options, setting) is None


def test_an_infinity_is_refused_where_none_is_not_a_limit_in_the_kernels_words() -> None:
    with pytest.raises(NanohubMCPError, match=r"NanohubMCP.max_kept_bytes must be a number of bytes >= 1, not the "
                                              r"float inf"):
        exported("max_kept_bytes = float('inf')")


def test_what_cannot_be_exported_says_how_to_write_no_limit_where_none_is_one() -> None:
    with pytest.raises(NanohubMCPError, match=r"to be exported; for no limit, write None$"):
        exported("max_result_bytes = float(LIMIT)")


@pytest.mark.parametrize(("setting", "where"), [("max_jobs", "ctor"), ("cache_max_bytes", "ctor"),
                                                ("max_result_bytes", "ctor"), ("max_buffered_bytes", "run")])
@pytest.mark.parametrize("value", ["10**400", "1e30", "2**64"])
def test_a_limit_past_every_bound_is_written_as_the_notebook_wrote_it(setting: str, where: str, value: str) -> None:
    script = exported(f"{setting} = {value}")
    if where == "ctor":
        assert f'server = MCPServer("demo", {setting}={value})' in script.text
        script_server(script.text)  # the script's MCPServer(...) takes it, as the kernel did
    else:
        assert f", {setting}={value}" in script.text
    assert "10000000000" not in script.text


def test_a_tower_of_powers_is_still_refused_unevaluated() -> None:
    with pytest.raises(NanohubMCPError, match=r"too large to evaluate safely \(past 2\*\*1024 in arithmetic"):
        exported("max_jobs = 9**9**9")


def test_a_power_a_port_cannot_take_is_refused_as_written() -> None:
    with pytest.raises(NanohubMCPError, match=r"NanohubMCP.port must be .*, not 10 \*\* 400$"):
        exported("port = 10**400")


def test_a_whole_float_port_is_the_int_in_the_script() -> None:
    script = exported("port = 19515.0")
    assert "default=19515," in script.text
    assert "else 19515 as in the notebook" in script.text
    assert "default=19515.0" not in script.text
