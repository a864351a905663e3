"""A pydantic model field's default of none of its types is warned of at registration and left out of the published
``inputSchema``, as a parameter's and a dataclass field's are.

Before: ``class Run(BaseModel): steps: int = "many"`` as a tool's parameter was published as ``{"type": "integer",
"default": "many"}`` (pydantic writes a default into its schema unchecked), without a word: a schema that rejects its
own default, which a client's form fills in and the call then refuses. A call leaving the field out still gets what
pydantic makes of it: the default as given, or, for a model that validates its defaults, a refusal in pydantic's
words naming the field.
"""

from __future__ import annotations

import warnings
from typing import Any

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationWarning

pydantic = pytest.importorskip("pydantic")


class Inner(pydantic.BaseModel):
    """A part of a run."""

    width: float = "wide"  # type: ignore[assignment]


class Run(pydantic.BaseModel):
    """A run's settings."""

    steps: int = "many"  # type: ignore[assignment]
    names: list[int] = ["a"]  # type: ignore[list-item]  # noqa: RUF012
    label: str = "run"
    fine: int = 3
    inner: Inner = Inner()


class Checked(pydantic.BaseModel):
    """Settings whose defaults pydantic validates at each call."""

    model_config = pydantic.ConfigDict(validate_default=True)
    steps: int = "many"  # type: ignore[assignment]
    count: int = "4"  # type: ignore[assignment]


def build() -> tuple[MCPServer, list[str]]:
    server = MCPServer("model-defaults", provenance=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")

        @server.tool()
        def start(run: Run) -> str:
            """Start a run."""
            return f"{run.steps!r} {run.names!r} {run.label} {run.fine} {run.inner.width!r}"

        @server.tool()
        def check(settings: Checked) -> str:
            """Check settings."""
            return f"{settings.steps!r} {settings.count!r}"

    return server, [str(w.message) for w in caught if issubclass(w.category, RegistrationWarning)]


def properties(schema: dict[str, Any], name: str) -> dict[str, Any]:
    found = schema["properties"][name]
    if "$ref" in found:
        found = schema["$defs"][found["$ref"].rsplit("/", 1)[1]]
    return dict(found["properties"])


@pytest.mark.anyio
async def test_a_models_mistyped_default_is_warned_of_not_published_and_a_call_leaving_it_out_is_sane() -> None:
    server, said = build()
    with serve(server) as url, anyio.fail_after(30):
        async with mcp_client(url + "mcp") as client:
            tools = {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}
            started = await client.call_tool("start", {"run": {}})
            checked = await client.call_tool("check", {"settings": {}})
            given = await client.call_tool("check", {"settings": {"steps": 7}})
    run = properties(tools["start"], "run")
    assert [name for name in ("steps", "names") if "default" in run[name]] == []  # was: both published
    assert (run["label"]["default"], run["fine"]["default"]) == ("run", 3)
    assert "default" not in tools["start"]["$defs"]["Inner"]["properties"]["width"]
    assert [name for name in ("steps", "count") if "default" in properties(tools["check"], "settings")[name]] == []
    # Left out by the client: pydantic's own default applies, as a parameter's own default does
    assert started.content[0].text == "'many' ['a'] run 3 'wide'"  # type: ignore[union-attr]
    # A model validating its defaults refuses the call naming the field, in pydantic's words (no internal error)
    assert checked.is_error
    text = checked.content[0].text  # type: ignore[union-attr]
    assert "for Checked steps Input should be a valid integer" in text, text
    assert "Internal error" not in text
    assert given.content[0].text == "7 4"  # type: ignore[union-attr]  # "4" converted by pydantic, as it validates
    wrong = [text for text in said if "is not of its type" in text]
    assert any(text.startswith("tool 'start': the default of field 'Run.steps' (parameter 'run') is not in the "
                               "published schema ('many' is not of its type integer") for text in wrong), wrong
    assert any("field 'Run.names'" in text and "at default[0] ('a')" in text for text in wrong), wrong
    assert any("field 'Inner.width'" in text for text in wrong), wrong
    assert any("field 'Checked.count' (parameter 'settings')" in text for text in wrong), wrong
    # Run.inner's default holds Inner's mistyped width: left out too, through Inner's $ref (trial72 T72-8)
    assert any("field 'Run.inner'" in text and "at default.width ('wide') is not of its type number" in text
               for text in wrong), wrong
    assert "default" not in run["inner"]
    assert len(wrong) == 6, wrong


class Fit(pydantic.BaseModel):
    """A fit's settings."""

    threshold: float = float("nan")


@pytest.mark.anyio
async def test_a_models_default_json_cannot_write_is_left_out_as_a_dataclass_fields_is() -> None:
    server = MCPServer("nan-default", provenance=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")

        @server.tool()
        def fit(settings: Fit) -> str:  # was: RegistrationError "nan at schema...default has no JSON form"
            """Fit."""
            return repr(settings.threshold)

    said = [str(w.message) for w in caught if issubclass(w.category, RegistrationWarning)]
    assert [text for text in said if "field 'Fit.threshold' (parameter 'settings')" in text
            and "nan has no JSON form" in text], said
    with serve(server) as url, anyio.fail_after(30):
        async with mcp_client(url + "mcp") as client:
            tools = {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}
            called = await client.call_tool("fit", {"settings": {}})
    assert "default" not in properties(tools["fit"], "settings")["threshold"]
    assert called.content[0].text == "nan"  # type: ignore[union-attr]  # the model's own default applies
