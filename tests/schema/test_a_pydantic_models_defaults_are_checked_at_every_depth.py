"""A pydantic model field's default that breaks its own constraint, or a nested model's default holding such a value,
is left out of the published ``inputSchema`` with a warning naming the field, at every depth (trial72 T72-8).

Before: the check left out a field's default of another type (``steps: int = "many"``) or one JSON has no form for
(``nan``), but published ``Field(ge=0)`` defaulting to ``-1`` and ``Field(pattern="^[a-z]+$")`` defaulting to
``"ABC"`` (in the model and in its nested models' ``$defs``), and a default holding a nested model's value
(``runs: list[Step] = [Step()]``) was not checked against that model's fields, behind its ``$ref``: a schema that
rejects its own default, which a client's form fills in and the call then refuses.
"""

from __future__ import annotations

from typing import Annotated, Any

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationWarning

pydantic = pytest.importorskip("pydantic")
Field = pydantic.Field


class Step(pydantic.BaseModel):
    """One step."""

    count: Annotated[int, Field(ge=0)] = -1
    code: Annotated[str, Field(pattern=r"^[a-z]+$")] = "ABC"
    size: int = 2


class Stage(pydantic.BaseModel):
    """A stage of steps."""

    first: Step = Step(count=1, code="ok")  # keeps Step's rules: published
    broken: Step = Step(code="ok")  # count -1 inside: left out


class Plan(pydantic.BaseModel):
    """A plan."""

    name: Annotated[str, Field(pattern=r"^[a-z]+$")] = "XY"
    limit: Annotated[int, Field(le=3)] = 9
    fine: Annotated[int, Field(le=3)] = 2
    stage: Stage = Stage()
    steps: list[Step] = [Step(count=4, code="ok"), Step(count=5)]  # noqa: RUF012


def plan(settings: Plan) -> str:
    """Plan."""
    return f"{settings.name} {settings.limit} {settings.stage.broken.count} {len(settings.steps)}"


def build() -> tuple[MCPServer, list[str]]:
    server = MCPServer("nested-defaults", provenance=False)
    with pytest.warns(RegistrationWarning) as caught:
        server.tool()(plan)
    return server, [str(w.message) for w in caught if issubclass(w.category, RegistrationWarning)]


def test_a_default_breaking_its_constraint_is_left_out_at_every_depth_and_said() -> None:
    server, said = build()
    with serve(server) as url, anyio.from_thread.start_blocking_portal() as portal:
        schema: dict[str, Any] = portal.call(_schema_and_call, url)
    tools, called = schema["schema"], schema["called"]
    plan = tools["properties"]["settings"]["properties"]
    defs = tools["$defs"]
    published = {f"Plan.{name}" for name, member in plan.items() if "default" in member}
    for model in ("Stage", "Step"):
        published |= {f"{model}.{name}" for name, member in defs[model]["properties"].items() if "default" in member}
    # was: all published but Stage.broken's nothing (its -1 is behind Step's $ref) and Plan.steps
    assert published == {"Plan.fine", "Stage.first", "Step.size"}, published
    named = {text.split("the default of field '", 1)[1].split("'", 1)[0] for text in said if "field '" in text}
    assert named == {"Plan.name", "Plan.limit", "Plan.stage", "Plan.steps", "Stage.broken", "Step.count",
                     "Step.code"}, said
    assert any("field 'Step.code' (parameter 'settings')" in text and "its default 'ABC' breaks its constraint "
               "pattern='^[a-z]+$'" in text for text in said), said
    assert any("field 'Plan.steps'" in text and "at default[1].code ('ABC') breaks its constraint pattern" in text
               for text in said), said
    assert any("field 'Stage.broken'" in text and "at default.count (-1)" in text for text in said), said
    # The model's own defaults still apply to a call leaving the fields out
    assert called == "XY 9 -1 2", called


async def _schema_and_call(url: str) -> dict[str, Any]:
    with anyio.fail_after(30):
        async with mcp_client(url + "mcp") as client:
            tools = {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}
            called = await client.call_tool("plan", {"settings": {}})
    return {"schema": tools["plan"], "called": called.content[0].text}  # type: ignore[union-attr]
