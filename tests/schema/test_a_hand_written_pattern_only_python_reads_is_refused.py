"""A ``pattern`` written by hand in a tool's schema with syntax only Python reads is refused at registration, naming
where it sits and what to write instead, as a ``Field(pattern=...)`` with the same is (trial72 T72-10).

Before: ``Annotated[str, {"pattern": r"(?i)^[a-z]+$"}]`` or an ``input_schema=`` holding ``\\Z``, ``(?P<n>...)``,
``\\A``, an atomic group or a possessive quantifier was registered, published to clients (for whom it is a syntax
error or another rule) and run Python's way (``"ABC"`` passed ``(?i)^[a-z]+$``), while ``Field(pattern=...)`` with
the same was refused.
"""

from __future__ import annotations

from typing import Annotated, Any

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationError

pydantic = pytest.importorskip("pydantic")

CASES = [
    (r"^\w+\Z", "\\Z (Python's end of text): write $"),
    (r"\Aab", "\\A (Python's start of text): write ^"),
    (r"(?i)^[a-z]+$", "an inline flag (?i)/(?i:...): write it into the pattern ([A-Za-z])"),
    (r"^(?P<run>[a-z]+)$", "(?P...) (a Python named group or reference): use a plain group (...)"),
    (r"^a++$", "a possessive quantifier"),
    (r"^(?>ab)$", "(?>...) (an atomic group)"),
]
IDS = ["end-z", "start-a", "inline-flag", "named-group", "possessive", "atomic"]


def field_refusal(pattern: str) -> str:
    def run(name: str) -> str:
        """Run."""
        return name

    run.__annotations__["name"] = Annotated[str, pydantic.Field(pattern=pattern)]
    server = MCPServer("field-pattern", provenance=False)
    with pytest.raises(RegistrationError) as caught:
        server.tool()(run)
    return str(caught.value)


@pytest.mark.parametrize(("pattern", "said"), CASES, ids=IDS)
def test_an_annotated_schemas_python_only_pattern_is_refused_as_a_fields_is(pattern: str, said: str) -> None:
    def run(name: str) -> str:
        """Run."""
        return name

    run.__annotations__["name"] = Annotated[str, {"pattern": pattern}]  # (a local: no string annotation)
    server = MCPServer("hand-pattern", provenance=False)
    with pytest.raises(RegistrationError) as caught:
        server.tool()(run)
    text = str(caught.value)
    assert text.startswith(f"tool 'run': invalid input schema: the pattern {pattern!r} at "
                           f"schema.properties.name.pattern uses {said}"), text
    assert text.endswith("(JSON Schema patterns are ECMA-262 regular expressions, which clients compile)"), text
    assert said in field_refusal(pattern)  # the same checker's words as the Field path's


@pytest.mark.parametrize(("where", "schema"), [
    ("schema.properties.name.pattern", {"type": "object", "properties": {"name": {"type": "string",
                                                                                  "pattern": r"(?i)^[a-z]+$"}}}),
    ('schema.properties.tags.patternProperties["(?i)^x_"]', {"type": "object", "properties": {
        "tags": {"type": "object", "patternProperties": {"(?i)^x_": {"type": "string"}}}}}),
    ("schema.properties.tags.propertyNames.pattern", {"type": "object", "properties": {
        "tags": {"type": "object", "propertyNames": {"pattern": "(?i)^x_"}}}}),
], ids=["pattern", "pattern-properties", "property-names"])
def test_an_input_schemas_python_only_pattern_is_refused_naming_where(where: str, schema: dict[str, Any]) -> None:
    server = MCPServer("input-schema-pattern", provenance=False)
    with pytest.raises(RegistrationError, match="inline flag") as caught:

        @server.tool(input_schema=schema)
        def run(**arguments: Any) -> str:
            """Run."""
            return "ran"

    assert f" at {where} uses an inline flag" in str(caught.value), caught.value


def test_an_ecma_262_pattern_written_by_hand_is_still_taken() -> None:
    server = MCPServer("hand-pattern-ok", provenance=False)

    @server.tool()
    def run(name: Annotated[str, {"pattern": r"^(?:[A-Za-z]+)(?=_)_\d{1,3}$"}]) -> str:
        """Run."""
        return name
