"""Registration warnings (no description, untyped parameter, a name replacing another function); the reserved name."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import warnings
from typing import Any

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationError, RegistrationWarning


def registered(server: MCPServer, fn: object, **options: object) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # an earlier test's object collected meanwhile (an unclosed event loop) is not the registration's
        warnings.simplefilter("ignore", ResourceWarning)
        server.add_tool(fn, **options)  # type: ignore[arg-type]
    assert all(w.category is RegistrationWarning for w in caught), [(w.category, str(w.message)) for w in caught]
    return [str(w.message) for w in caught]


def test_a_tool_without_description_or_parameter_types_is_reported() -> None:
    def area(w, h):  # type: ignore[no-untyped-def]
        return w * h

    assert registered(MCPServer("w"), area) == [
        "tool 'area' has no description: the model sees only its name; add a docstring or description='...'",
        "tool 'area': parameters 'w', 'h' have no type, so any JSON value is accepted; annotate it (e.g. x: float)",
    ]


class Gadget:
    """A class the schema generator has no JSON form for."""


def test_a_parameter_annotated_with_a_class_without_json_form_is_named_not_called_untyped() -> None:
    def use(g: Gadget, h: "Gadget", anything: Any, thing: object, bare) -> int:  # type: ignore[no-untyped-def] # noqa: UP037
        """Use a gadget."""
        return 1

    advice = (
        "which has no JSON Schema form, so any JSON value is accepted and passed to the function as is; "
        "use a type the schema describes (float, str, list[float], dict[str, float], a dataclass, "
        "TypedDict, NamedTuple or Enum)"
    )
    assert registered(MCPServer("w"), use) == [
        "tool 'use': parameter 'bare' has no type, so any JSON value is accepted; annotate it (e.g. x: float)",
        f"tool 'use': parameter 'g' is annotated Gadget, {advice}",
        f"tool 'use': parameter 'h' is annotated Gadget, {advice}",
    ]


def test_a_described_typed_tool_and_an_explicit_schema_are_quiet() -> None:
    def area(w: float, h: float) -> float:
        """Area of a rectangle."""
        return w * h

    server = MCPServer("w")
    assert registered(server, area) == []
    assert registered(server, area) == []  # re-running the same definition, as a notebook cell does
    schema = {"type": "object", "properties": {"w": {}}}
    assert registered(server, lambda w: w, name="free", description="d", input_schema=schema) == []


def test_a_name_pointing_at_another_function_or_signature_is_reported() -> None:
    def first(x: int) -> int:
        """One."""
        return x

    def second(x: int) -> int:
        """Two."""
        return x

    def first_again(x: int, y: int = 0) -> int:
        """One, edited."""
        return x

    server = MCPServer("w")
    registered(server, first, name="f")
    [other] = registered(server, second, name="f")
    assert other.startswith("tool 'f' replaces a different function of that name: it was ")
    assert other.endswith("second (to serve both, give one of them another name)")  # what to do (trial12)
    first_again.__qualname__ = second.__qualname__
    [changed] = registered(server, first_again, name="f")
    assert changed.endswith("the signature changed from (x: 'int') -> 'int' to (x: 'int', y: 'int' = 0) -> 'int'")


def test_the_reserved_poll_name_is_refused_and_the_server_keeps_its_own() -> None:
    server = MCPServer("w")

    @server.async_tool()
    def slow() -> int:
        """Slow."""
        return 1

    def mine(job_id: str) -> str:
        """Mine."""
        return job_id

    with pytest.raises(RegistrationError, match="'get_job_result': the name is reserved by the server"):
        server.add_tool(mine, name="get_job_result")
    assert server.core.registry.tools.get("get_job_result").fn.__name__ == "get_job_result"


def test_a_warning_names_the_users_line_and_is_shown_once() -> None:
    script = textwrap.dedent(
        """
        from nanohubmcp import MCPServer
        server = MCPServer("w")
        for _ in range(3):
            @server.tool()
            def bare(x: int) -> int:
                return x
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if "RegistrationWarning" in line]
    assert lines == [
        "<string>:5: RegistrationWarning: tool 'bare' has no description: the model sees only its name; "
        "add a docstring or description='...'"
    ]


def test_an_empty_name_is_refused_not_taken_for_no_name() -> None:
    """``name=""`` (an unset setting, say) is a mistake, as ``name="bad name!"`` is (trial10 F15)."""
    server = MCPServer("w")

    def f4(x: int) -> int:
        """Four."""
        return x

    with pytest.raises(RegistrationError) as refused:
        server.tool(name="")(f4)
    assert str(refused.value) == (
        "tool name='' is empty: pass a non-empty name=..., or leave name out to use the function's name ('f4')"
    )
    assert refused.value.option == "name"
    with pytest.raises(RegistrationError, match="prompt name='' is empty"):
        server.prompt(name="")(f4)
    with pytest.raises(RegistrationError, match="resource 'data://x' name='' is empty"):
        server.resource("data://x", name="")(f4)
    with pytest.raises(RegistrationError) as bad:
        server.tool(name="bad name!")(f4)
    # A name like the one given, to use instead (it said to pass name='...', which this call did; trial12).
    assert str(bad.value) == ("tool 'bad name!': names are 1-128 ASCII letters, digits, '_', '-' and '.' (SEP-986); "
                              "choose another, e.g. name='bad_name'")
    assert server.core.registry.tools.get("f4") is None
    server.tool(name=None)(f4)
    assert server.core.registry.tools.get("f4") is not None
