"""A pattern that is not a regular expression is refused when the tool is registered, naming the parameter and
the regex error (trial65 F7).

Before: ``Field(pattern=r"^[A-Z][a-z?$")`` (a missing ``]``) registered; ``tools/list`` published it and every call
answered -32603 "Internal error; see the server log" (the log's RegistrationError named it, at each call). Same for a
hand-written ``{"pattern": ...}`` in ``Annotated``, whose schema is compiled at the first call too. Beside it, the
other bounds a signature's schema can hold wrong: bounds no value meets are refused (F9), and an exclusive bound
refusing a value is said as exclusive (F4).
"""

from __future__ import annotations

from typing import Annotated, Any

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationError

pydantic = pytest.importorskip("pydantic")
Field = pydantic.Field


def _register(annotation: Any) -> MCPServer:
    server = MCPServer("badpattern", provenance=False)

    def element(symbol):  # type: ignore[no-untyped-def]
        """An element's name."""
        return symbol

    element.__annotations__ = {"symbol": annotation, "return": str}
    server.tool()(element)
    return server


@pytest.mark.parametrize(("pattern", "error"), [
    (r"^[A-Z][a-z?$", "unterminated character set at position 6"),
    (r"^(a", "missing ), unterminated subpattern at position 1"),
    (r"^a{2,1}$", "min repeat greater than max repeat"),
], ids=["open-class", "open-group", "bad-repeat"])
def test_a_field_pattern_that_is_no_regex_is_refused_naming_the_parameter_and_the_error(
    pattern: str, error: str,
) -> None:
    with pytest.raises(RegistrationError) as refused:
        _register(Annotated[str, Field(pattern=pattern, description="element symbol")])
    said = str(refused.value)
    assert said.startswith(f"tool 'element': parameter 'symbol': the pattern {pattern!r} is not a regular "
                           "expression: "), said
    assert error in said, said


def test_a_hand_written_pattern_that_is_no_regex_is_refused_naming_where_it_is() -> None:
    with pytest.raises(RegistrationError) as refused:
        _register(Annotated[str, {"pattern": "^(a"}])
    said = str(refused.value)
    assert said == ("tool 'element': invalid input schema: the pattern '^(a' at schema.properties.symbol.pattern is "
                    "not a regular expression: missing ), unterminated subpattern at position 1"), said
    where = r"at schema\.properties\.symbol\.patternProperties\[\"\[a-\"\] is not a regular expression"
    with pytest.raises(RegistrationError, match=where):
        _register(Annotated[dict[str, int], {"patternProperties": {"[a-": {"type": "integer"}}}])


@pytest.mark.anyio
async def test_a_good_pattern_still_registers_and_is_checked() -> None:
    server = _register(Annotated[str, Field(pattern=r"^[A-Z][a-z]?$")])
    with serve(server) as url, anyio.fail_after(30):
        async with mcp_client(url + "mcp") as client:
            good = await client.call_tool("element", {"symbol": "Si"})
            bad = await client.call_tool("element", {"symbol": "si"})
    assert not good.is_error, good.content
    assert bad.is_error, bad.content
    assert "does not match" in bad.content[0].text, bad.content


@pytest.mark.parametrize(("annotation", "said"), [
    (Annotated[float, Field(gt=10, lt=5)], "no number is greater than 10 and less than 5"),
    (Annotated[int, Field(ge=3), Field(lt=3)], "no number is at least 3 and less than 3"),
    (Annotated[str, Field(min_length=5, max_length=2)], "no length is at least 5 and at most 2"),
], ids=["open-range", "two-fields", "lengths"])
def test_bounds_no_value_meets_are_refused_naming_them(annotation: Any, said: str) -> None:
    """trial65 F9: ``Field(gt=10, lt=5)`` registered, and every call was refused with two messages."""
    with pytest.raises(RegistrationError, match=r"^tool 'element': parameter 'symbol': ") as refused:
        _register(annotation)
    assert said in str(refused.value), refused.value
    _register(Annotated[float, Field(ge=3, le=3)])  # one value meets it: kept


@pytest.mark.anyio
async def test_an_exclusive_bound_is_said_as_one() -> None:
    """trial65 F4: ``Field(gt=0)`` refusing 0 said "0 is less than or equal to the minimum of 0" (read: 0 allowed)."""
    server = MCPServer("bounds", provenance=False)

    @server.tool()
    def boltzmann(temperature: Annotated[float, Field(gt=0)], cap: Annotated[float, Field(lt=1)] = 0.5) -> float:
        """A Boltzmann factor."""
        return temperature

    with serve(server) as url, anyio.fail_after(30):
        async with mcp_client(url + "mcp") as client:
            low = await client.call_tool("boltzmann", {"temperature": 0})
            high = await client.call_tool("boltzmann", {"temperature": 1, "cap": 1})
    assert low.is_error, low.content
    assert "arguments.temperature: 0 is less than or equal to the exclusive minimum of 0" in low.content[0].text
    assert high.is_error, high.content
    assert "arguments.cap: 1 is greater than or equal to the exclusive maximum of 1" in high.content[0].text
