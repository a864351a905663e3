"""A Sim2L ``Array`` input's value is checked whole before any element is converted, then its strings
with units are converted a unit at a time, giving what simtool gives converting each alone.

Found by the trial13/14 follow-up: simtool read each of 100,000 valid strings with pint's parser
(~12-30 s) before the last, of the wrong kind, was refused; ragged rows (``[[1, 2], [3]]``), a number
beside rows (``[1, [2, 3]]``) and ``null`` / ``true`` / objects inside rows were given to the notebook
or refused with simtool's own text. Now such a value is -32602 naming the row or element and saying
what an Array is. Real simtool and pint throughout; the refusals go through a real server and the
official ``mcp`` client (no call here runs a notebook: each is refused before papermill, or only
prepared).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.errors import InvalidArguments
from nanohubmcp.sources.sim2l.notebook import read_sim2l
from nanohubmcp.sources.sim2l.values import prepare

pytest.importorskip("simtool")

ARRAYS = Path(__file__).parent / "data" / "arrays" / "cooling.ipynb"
"""A Sim2L named ``cooling`` whose Array input ``temps`` takes temperatures from 0 to 5000 K."""

SPELLINGS = [
    "300 K", "300K", "+5 K", "-0 K", "0 K", "300.5 K", "-0.0 K", ".5 K", "5. K", "1e3 K", "1E3 K", "2.5e-3 K",
    "25 degC", "25degC", "77 degF", "25 C", "77 F", "5 mK", "500 degR", "3 K*K/K", "300", "2.5",
    "05 K", "007 K", "00.5 K", "1 kelvin", "4 (K)", "0.001 kK",
]
"""Strings simtool accepts for a K input, some of which pint reads in its own way (``"05 K"`` is 0 K)."""


def _alone(value: Any) -> Any:
    """``value`` as simtool's Array converts it element by element (its own, slow, path)."""
    from simtool.params import Params

    holder = Params.types["Array"](units="K", min=0, max=5000)
    if isinstance(value, list):
        return [_alone(element) for element in value]
    holder.value = [value]
    return holder.value[0]


def _prepared(temps: Any) -> Any:
    return prepare(read_sim2l(ARRAYS), {"temps": temps}, "arrtest").parameters["temps"]


def _same(one: Any, other: Any) -> bool:
    if isinstance(one, list):
        return isinstance(other, list) and len(one) == len(other) and all(map(_same, one, other))
    return type(one) is type(other) and one == other


def test_strings_converted_a_unit_at_a_time_are_what_simtool_makes_of_each() -> None:
    many = [SPELLINGS[i % len(SPELLINGS)] for i in range(3000)] + [1, 2.5, 300]
    for temps in (SPELLINGS, many, [SPELLINGS[:6], SPELLINGS[6:12]], [[["300 K", "25 degC"]], [["1e3 K", 4]]]):
        got = _prepared(temps)
        assert _same(got, _alone(temps)), (got, temps)


@pytest.mark.parametrize(("temps", "message"), [
    # the first element simtool refuses is the one named, in order, whatever refuses it
    (["300 K"] * 10 + ["6000 K", "1 m"], "input 'temps[10]': \"6000 K\" is out of range: the maximum value is 5000 K"),
    (["300 K"] * 3 + ["1 m"] + ["300 K"] * 3 + ["6000 K"], "input 'temps[3]': \"1 m\" has units of [length]"),
    (["1 m", "1 s"], "input 'temps[0]': \"1 m\" has units of [length]"),
    ([[1, 2], [3, "4 s"]], "input 'temps[1][1]': \"4 s\" has units of [time]"),
    (["300 K", "-5 K"], "input 'temps[1]': \"-5 K\" is out of range: the minimum value is 0 K"),
    (["300 K", "05 m"], "input 'temps[1]': \"05 m\" has units of [length]"),
    # the shape and the element types are checked whole before anything is converted
    (["1 m"] * 5 + [True], "input 'temps[5]': true is not a number"),
    ([[1, 2], [3]], "input 'temps[1]': has 1 element but temps[0] has 2: the rows of an Array all have one length"),
    ([[], [1]], "input 'temps[1]': has 1 element but temps[0] has 0"),
    ([[[1, 2]], [[1, 2]], [[1]]], "input 'temps[2][0]': has 1 element but temps[0][0] has 2"),
    ([1, [2, 3]], "input 'temps[1]': is a row (a list) where temps[0] is a number: an Array's elements are all "
                  "numbers, or all rows of one length"),
    ([[1, 2], 3], "input 'temps[1]': 3 stands where temps[0] is a row (a list)"),
    ([["1 m", None]], "input 'temps[0][1]': null is not a number"),
    ([[{"k": 1}]], "input 'temps[0][0]': {\"k\": 1} is not a number"),
    (["1 m", "9**9 K"], "input 'temps[1]': cannot read \"9**9 K\" as a number with units: it has a power"),
])
def test_a_refused_array_names_its_first_refused_element_or_row(temps: Any, message: str) -> None:
    with pytest.raises(InvalidArguments) as refused:
        _prepared(temps)
    assert str(refused.value).startswith("Invalid arguments for tool 'arrtest': ")
    assert message in str(refused.value)


def test_an_array_of_rows_keeps_its_shape() -> None:
    assert _prepared([[], []]) == [[], []]
    assert _prepared([]) == []
    assert _prepared([["1 K", "2 K", 3], ["4 K", "5 K", "6 K"]]) == [[1, 2, 3], [4, 5, 6]]
    assert _prepared([[[1, "2 K"]], [["3 K", 4]]]) == [[[1, 2]], [[3, 4]]]


@pytest.mark.anyio
async def test_a_ragged_or_mixed_array_is_invalid_params_over_the_wire(tmp_path: Path) -> None:
    server = MCPServer("sim2l-arrays", state_dir=str(tmp_path / "state"), argument_errors="protocol")
    server.add_sim2l(str(ARRAYS), name="arrtest")
    with serve(server) as url:
        async with mcp_client(url + "mcp") as client:
            for temps, named in (
                ([[1, 2], [3]], "input 'temps[1]': has 1 element but temps[0] has 2"),
                ([1, [2, 3]], "input 'temps[1]': is a row (a list) where temps[0] is a number"),
                ([[1, None]], "input 'temps[0][1]': null is not a number"),
                (["300 K"] * 20_000 + ["1 m"], "input 'temps[20000]': \"1 m\" has units of [length]"),
            ):
                with pytest.raises(MCPError) as refused:
                    await client.call_tool("arrtest", {"temps": temps})
                assert refused.value.error.code == -32602
                assert named in refused.value.error.message, refused.value.error.message
                assert len(refused.value.error.message) < 1000
            assert (await client.list_tools()).tools  # still serving
