"""``cellspec``: magic lines become plain option records, and the right function is picked (no IPython)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from nanohubmcp.errors import RegistrationError
from nanohubmcp.jupyter.cellspec import (
    FunctionInfo,
    PromptSpec,
    ResourceSpec,
    ToolSpec,
    find_functions,
    parse_prompt_line,
    parse_resource_line,
    parse_tool_line,
    pick_function,
)


def test_a_bare_tool_line_asks_for_nothing_special() -> None:
    spec = parse_tool_line("")
    assert spec == ToolSpec()
    assert spec.registration_options() == {}
    assert spec.annotations() is None


def test_every_tool_option_is_read() -> None:
    line = (
        "--name area --description 'Area of a circle' --tags geometry,,math --title Area "
        "--async --read-only --idempotent --open-world"
    )
    spec = parse_tool_line(line)
    assert spec == ToolSpec(
        name="area",
        description="Area of a circle",
        title="Area",
        tags=frozenset({"geometry", "math"}),
        background=True,
        read_only=True,
        idempotent=True,
        open_world=True,
    )
    hints = ("readOnlyHint", "idempotentHint", "openWorldHint")
    assert spec.annotations() == dict.fromkeys(hints, True)
    assert parse_tool_line("--destructive --main") == ToolSpec(destructive=True, main=True)


@pytest.mark.parametrize(("line", "flags"), [
    ("--cache --cache-shared", "--cache and --cache-shared"),
    ("--cache-shared --cache --cache-ttl 60", "--cache and --cache-shared"),
    ("--destructive --read-only", "--read-only and --destructive"),
    ("--async --main", "--async and --main"),
])
def test_options_that_contradict_each_other_are_refused_in_one_line(line: str, flags: str) -> None:
    """trial37 V3: ``--cache --cache-shared`` became the shared cache silently (one caller's result
    answered another's)."""
    with pytest.raises(RegistrationError, match=f"%%mcp_tool: {flags} contradict each other") as refused:
        parse_tool_line(line)
    assert "\n" not in str(refused.value)


def test_tags_split_on_commas_and_quotes_group_words() -> None:
    spec = parse_tool_line('--tags "math, basic" --description "Adds two numbers" --open-world')
    assert spec.tags == frozenset({"math", "basic"})
    assert spec.description == "Adds two numbers"
    assert spec.registration_options() == {
        "description": "Adds two numbers",
        "tags": frozenset({"math", "basic"}),
        "annotations": {"openWorldHint": True},
    }


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("--bogus", "%%mcp_tool: unrecognized arguments: --bogus"),
        ("--name", "%%mcp_tool: argument --name: expected one argument"),
        ("--name ''", "%%mcp_tool: --name needs a non-empty value"),
        ("--tags ,", "%%mcp_tool: --tags needs at least one tag"),
        ("--description 'unclosed", "%%mcp_tool: cannot read the options: No closing quotation"),
        ("extra", "%%mcp_tool: unrecognized arguments: extra"),
        ("--asy", "%%mcp_tool: unrecognized arguments: --asy"),  # no abbreviations
    ],
)
def test_bad_tool_lines_raise_one_line_registration_errors(line: str, message: str) -> None:
    with pytest.raises(RegistrationError) as caught:
        parse_tool_line(line)
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def test_resource_lines_need_a_uri() -> None:
    spec = parse_resource_line("weather://{city}/now --mime-type application/json --name weather --title Now")
    assert spec == ResourceSpec("weather://{city}/now", "application/json", "weather", None, "Now")
    assert spec.registration_options() == {"mime_type": "application/json", "name": "weather", "title": "Now"}
    with pytest.raises(RegistrationError, match="the following arguments are required: URI"):
        parse_resource_line("--mime-type text/plain")


def test_prompt_lines() -> None:
    spec = parse_prompt_line("--name ask --description 'Ask something'")
    assert spec == PromptSpec("ask", "Ask something")
    assert spec.registration_options() == {"name": "ask", "description": "Ask something"}
    with pytest.raises(RegistrationError, match="%%mcp_prompt: unrecognized arguments: --async"):
        parse_prompt_line("--async")


CELL = """
import math

def _helper(x):
    return x

@decorate
@another(1)
def area(r: float) -> float:
    return math.pi * r * r

async def fetch():
    return 1
"""


def test_functions_are_found_with_their_first_decorator_line() -> None:
    assert find_functions(CELL) == [
        FunctionInfo("_helper", 4, 4, False),
        FunctionInfo("area", 7, 9, False),
        FunctionInfo("fetch", 12, 12, True),
    ]


def test_picking_a_function() -> None:
    with pytest.raises(RegistrationError, match=r"several functions \(area, fetch\); pick the one to serve with "
                       r"--name \(--name area\), or start the helpers' names with '_'$"):
        pick_function(CELL)
    # A --name that names none of them says both what it does and how to serve one under that name (trial12).
    with pytest.raises(RegistrationError) as unknown:
        pick_function(CELL, "size")
    assert str(unknown.value) == (
        "%%mcp_tool: the cell defines several functions (area, fetch); none is named 'size': --name picks the one "
        "to serve (--name area); to serve it as 'size', start the other functions' names with '_' (helpers) and "
        "keep --name size")
    assert pick_function(CELL, "fetch") == (FunctionInfo("fetch", 12, 12, True), False)
    # Helpers (leading underscore) are never candidates; one public function is enough.
    only = "def _h():\n    pass\n\ndef tool():\n    pass\n"
    assert pick_function(only) == (FunctionInfo("tool", 4, 4, False), False)
    # With one candidate, a --name that is no function's name renames it.
    assert pick_function(only, "renamed") == (FunctionInfo("tool", 4, 4, False), True)
    # A cell of helpers only registers its (last) helper.
    assert pick_function("def _a():\n    pass\n")[0].name == "_a"
    # Redefining a name in the same cell picks its last definition.
    twice = "def f():\n    return 1\n\ndef f():\n    return 2\n"
    assert pick_function(twice)[0].lineno == 4


def test_a_cell_without_a_function_is_refused_by_kind() -> None:
    with pytest.raises(RegistrationError, match="%%mcp_resource: the cell defines no function"):
        pick_function("x = 1\nlambda: 2\n", kind="resource")
    with pytest.raises(SyntaxError):
        pick_function("def broken(:\n")


def test_cellspec_imports_no_ipython() -> None:
    code = "import sys, nanohubmcp.jupyter.cellspec; print(any(m.startswith('IPython') for m in sys.modules))"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.strip() == "False"


def test_cache_ttl_alone_implies_cache() -> None:
    # A trial finding: `--cache-ttl 60` alone was refused with the decorator's message ("cache_ttl= needs cache=True").
    spec = parse_tool_line("--cache-ttl 60")
    assert spec.registration_options()["cache"] is True
    assert spec.registration_options()["cache_ttl"] == 60.0
    assert parse_tool_line("--cache-shared --cache-ttl 5").registration_options()["cache"] == "shared"
    assert "cache" not in parse_tool_line("").registration_options()
