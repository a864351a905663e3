"""The ``Tool`` record's ``__init__`` and ``__repr__`` are written out (not compiled by ``@dataclass`` at import):
it stays a dataclass that ``dataclasses.replace``, ``fields`` and ``asdict`` read, takes its fields by keyword or in
order, shows them in order, and gives each record an ``extra`` dict of its own."""

from __future__ import annotations

import dataclasses

from nanohubmcp import MCPServer, Tool


def add(a: float, b: float) -> float:
    """Sum of two numbers."""
    return a + b


FIELDS = ("name", "fn", "signature", "input_schema", "validator", "description", "title", "tags", "meta",
          "annotations", "output_schema", "output_validator", "background", "is_coroutine", "icons", "extra")


def test_a_tool_record_is_a_dataclass_shown_and_replaced_by_its_fields() -> None:
    tool = Tool.from_function(add, tags=["math"])
    assert dataclasses.is_dataclass(tool)
    assert tuple(f.name for f in dataclasses.fields(Tool)) == FIELDS == Tool.__match_args__
    assert repr(tool) == "Tool(" + ", ".join(f"{name}={getattr(tool, name)!r}" for name in FIELDS) + ")"
    assert repr(tool).startswith("Tool(name='add', fn=<function add at ")

    renamed = dataclasses.replace(tool, name="plus")
    assert (renamed.name, renamed.fn, renamed.tags) == ("plus", add, {"math"})
    assert renamed.description == "Sum of two numbers."
    assert type(renamed) is Tool
    assert renamed is not tool
    assert dataclasses.asdict(tool)["name"] == "add"

    server = MCPServer("records")
    server.tool(name="plus")(add)
    registered = server.core.registry.tools.get("plus")
    assert registered is not None
    assert dataclasses.replace(registered, title="Plus").title == "Plus"


def test_each_tool_record_has_an_extra_dict_of_its_own() -> None:
    tool = Tool.from_function(add)
    by_position = Tool(*(getattr(tool, name) for name in FIELDS[:5]))
    assert by_position.extra == {}
    assert by_position.extra is not tool.extra
    assert (by_position.description, by_position.tags, by_position.background) == (None, frozenset(), False)
    given = {"task_support": "optional"}
    assert Tool(tool.name, tool.fn, tool.signature, tool.input_schema, tool.validator, extra=given).extra is given
