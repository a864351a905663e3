"""A default of none of its parameter's (or record field's) types is warned of at registration and left out of the
published ``inputSchema``; a record field's default that breaks its own constraint is refused, as a parameter's is.

Before: ``x: int = "abc"`` and a dataclass field ``n: int = "zz"`` registered without a word and were published as
``{"type": "integer", "default": "abc"}``: a schema that rejects its own default, read by every client (a form
fills the field with it, and the call is refused), while a call leaving the argument out ran the function with
``"abc"``. A dataclass field ``Annotated[int, Field(gt=0)] = -1`` was published too, where a parameter's is refused.
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Annotated, Optional

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationError, RegistrationWarning

pydantic = pytest.importorskip("pydantic")


@dataclasses.dataclass
class Settings:
    """A run's settings."""

    steps: int = "many"  # type: ignore[assignment]
    label: str = "run"


@dataclasses.dataclass
class Grid:
    """A grid."""

    points: Annotated[int, pydantic.Field(gt=0)] = -1


def build() -> tuple[MCPServer, list[str]]:
    server = MCPServer("defaults", provenance=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")

        @server.tool()
        def scale(x: int = "abc", factor: float = 2, names: list[int] = ["a"], maybe: Optional[int] = "no",  # type: ignore[assignment]  # noqa: B006, UP045
                  fine: int = 3) -> str:
            """Scale x."""
            return repr(x)

        @server.tool()
        def configure(settings: Settings) -> int:
            """Configure a run."""
            return 1

    return server, [str(w.message) for w in caught if issubclass(w.category, RegistrationWarning)]


@pytest.mark.anyio
async def test_a_mistyped_default_is_warned_of_and_not_in_the_published_schema() -> None:
    server, said = build()
    with serve(server) as url, anyio.fail_after(30):
        async with mcp_client(url + "mcp") as client:
            tools = {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}
            called = await client.call_tool("scale", {})
    scale = tools["scale"]["properties"]
    assert [name for name in ("x", "names", "maybe") if "default" in scale[name]] == []  # was: all three
    assert scale["factor"]["default"] == 2
    assert scale["fine"]["default"] == 3
    assert "default" not in tools["configure"]["properties"]["settings"]["properties"]["steps"]
    assert tools["configure"]["properties"]["settings"]["properties"]["label"]["default"] == "run"
    assert called.content[0].text == "'abc'"  # type: ignore[union-attr]  # the function's own default still applies
    wrong = [text for text in said if "is not of its type" in text]
    assert any(text.startswith("tool 'scale': the default of parameter 'x' is not in the published schema ('abc' is "
                               "not of its type integer") for text in wrong), wrong
    assert any("parameter 'names'" in text and "at default[0] ('a')" in text for text in wrong), wrong
    assert any("parameter 'maybe'" in text for text in wrong), wrong
    assert any("field 'Settings.steps' (parameter 'settings')" in text for text in wrong), wrong
    assert len(wrong) == 4, wrong


def test_a_record_fields_default_that_breaks_its_constraint_is_refused_as_a_parameters_is() -> None:
    server = MCPServer("grid", provenance=False)
    with pytest.raises(RegistrationError) as refused:  # was: registered, published with "default": -1

        @server.tool()
        def mesh(grid: Grid) -> int:
            """Mesh it."""
            return grid.points

    assert str(refused.value).startswith("tool 'mesh': parameter 'grid': field ")
    assert "Grid.points: its default -1 breaks its constraint gt=0" in str(refused.value)
