"""A ``pattern`` is checked as ECMA-262 reads it and a float ``multipleOf`` within a float's error, as pydantic
checks the ``Field`` they came from; what JSON Schema cannot say of a ``Field`` / annotated_types constraint is
refused at registration naming it (review r38 F1, F2, F9, F10).

Before: ``Field(pattern=r"^[a-z0-9_]+$")`` let ``"run_1\\n"`` run the tool (jsonschema's ``re.search``: Python's
``$`` also matches before a final newline; pydantic and a client refuse it); ``Field(multiple_of=0.1)`` refused
``0.3`` and ``0.7`` (``0.3 / 0.1`` is ``2.9999999999999996``); ``Timezone(None)`` was dropped (an aware datetime ran
the tool); ``re.compile("^[a-z]+$", re.I)`` was published without its flag (``"ABC"`` refused); ``\\Z``,
``(?P<n>...)``, ``(?i)`` were published to clients, for whom they are syntax errors.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
import subprocess
from typing import Annotated, Any

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationError

pydantic = pytest.importorskip("pydantic")
at = pytest.importorskip("annotated_types")
Field = pydantic.Field

RUN_NAME = r"^[a-z0-9_]+$"
NAMES = ["run_1", "run_1\n", "Run_1", "run 1", "\nrun_1", "run_1\n\n"]
STEPS = [0.3, 0.7, 1.1, 2.0, 0.35, 0.05, -0.3, 0.1 * 3]


def _pydantic_accepts(annotation: Any, value: object) -> bool:
    try:
        pydantic.TypeAdapter(annotation).validate_python(value)
    except pydantic.ValidationError:
        return False
    return True


def build(ran: list[str]) -> MCPServer:
    server = MCPServer("ecma", provenance=False)

    @server.tool()
    def run(name: Annotated[str, Field(pattern=RUN_NAME)]) -> str:
        """Start a run (its name becomes a folder)."""
        ran.append(name)
        return name

    @server.tool()
    def sweep(step: Annotated[float, Field(multiple_of=0.1)]) -> float:
        """Sweep in steps of 0.1 eV."""
        return step

    @server.tool()
    def stem(name: Annotated[str, {"pattern": "^[a-z]+$"}]) -> str:
        """A hand-written pattern: read as JSON Schema means it too."""
        ran.append(name)
        return name

    return server


@pytest.mark.anyio
async def test_a_pattern_and_a_float_step_refuse_what_pydantic_refuses_and_accept_what_it_accepts() -> None:
    ran: list[str] = []
    with serve(build(ran)) as url, anyio.fail_after(30):
        async with mcp_client(url + "mcp") as client:
            tools = {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}
            names = {name: await client.call_tool("run", {"name": name}) for name in NAMES}
            steps = {step: await client.call_tool("sweep", {"step": step}) for step in STEPS}
            stem = await client.call_tool("stem", {"name": "abc\n"})
    assert tools["run"]["properties"]["name"]["pattern"] == RUN_NAME  # published as written
    for name, answer in names.items():
        expected = _pydantic_accepts(Annotated[str, Field(pattern=RUN_NAME)], name)
        assert answer.is_error is not expected, (name, answer.content)
        if not expected:
            assert "does not match" in answer.content[0].text, answer.content
    assert ran == ["run_1"]
    for step, answer in steps.items():
        expected = _pydantic_accepts(Annotated[float, Field(multiple_of=0.1)], step)
        assert answer.is_error is not expected, (step, answer.content)
    assert not steps[0.3].is_error, steps[0.3].content
    assert not steps[0.7].is_error, steps[0.7].content
    assert "0.35 is not a multiple of 0.1" in steps[0.35].content[0].text
    assert stem.is_error, stem.content


def _register(annotation: Any) -> None:
    server = MCPServer("refused", provenance=False)

    def tool(x):  # type: ignore[no-untyped-def]
        """A tool."""
        return x

    tool.__annotations__ = {"x": annotation}
    server.tool()(tool)


@pytest.mark.parametrize(("annotation", "said"), [
    (Annotated[dt.datetime, at.Timezone(None)], "Timezone(tz=None) cannot be said"),
    (Annotated[str, Field(pattern=re.compile("^[a-z]+$", re.IGNORECASE))], "flag re.IGNORECASE"),
    (Annotated[str, Field(pattern=re.compile("^[a-z]+$", re.M | re.S))], "re.MULTILINE|re.DOTALL"),
    (Annotated[str, Field(pattern=r"^\w+\Z")], r"\Z (Python's end of text): write $"),
    (Annotated[str, Field(pattern=r"\A\w+$")], r"\A (Python's start of text): write ^"),
    (Annotated[str, Field(pattern=r"^(?P<run>[a-z]+)_\d+$")], "(?P...)"),
    (Annotated[str, Field(pattern=r"(?i)^[a-z]+$")], "an inline flag"),
    (Annotated[str, at.Len(1, 4), Field(pattern=r"^a++$")], "a possessive quantifier"),
    (Annotated[str, Field(pattern=r"^[]a]+$")], "a ] first in a character class"),
    (Annotated[str, Field(pattern=r"^x{,3}$")], "write {0,n}"),
], ids=["naive-timezone", "compiled-ignorecase", "compiled-two-flags", "backslash-Z", "backslash-A",
        "named-group", "inline-flag", "possessive", "bracket-first", "brace-comma"])
def test_what_json_schema_cannot_say_of_a_constraint_is_refused_at_registration_naming_it(
    annotation: Any, said: str,
) -> None:
    with pytest.raises(RegistrationError, match=r"^tool 'tool': parameter 'x': ") as refused:
        _register(annotation)
    assert said in str(refused.value), refused.value


def test_a_compiled_pattern_without_flags_and_an_ecma_pattern_are_published() -> None:
    _register(Annotated[str, Field(pattern=re.compile(r"^[a-z]+$"))])
    _register(Annotated[str, Field(pattern=r"^(?:[a-z]+|\$[0-9]+)(?<!_)$")])
    _register(Annotated[dt.datetime, at.Interval(gt=None, lt=None)])  # an unset part asks for nothing


ORACLE_PATTERNS = [RUN_NAME, r"^(?:ab|cd)+$", r"^[$]x$", r"a$|^b", r"(?<=a)b$", r"^a\$$", r"^[^\]]+$", r"x$(?!y)"]
ORACLE_VALUES = ["run_1", "run_1\n", "abcd", "abcd\n", "$x", "$x\n", "a", "a\n", "b\n", "ab", "ab\n", "a$", "a$\n",
                 "x", "x\n", "]", "x\ny"]


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node (an ECMA-262 engine) as the oracle")
def test_the_check_agrees_with_an_ecma_262_engine() -> None:
    """node's ``RegExp(pattern, "u")`` (what ajv compiles) is the oracle for each pattern and value."""
    from nanohubmcp.schema.ecma_pattern import ecma_search

    script = (
        "const [ps, vs] = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "console.log(JSON.stringify(ps.map(p => vs.map(v => new RegExp(p, 'u').test(v)))));"
    )
    done = subprocess.run(["node", "-e", script], input=json.dumps([ORACLE_PATTERNS, ORACLE_VALUES]),
                          capture_output=True, text=True, timeout=60, check=True)
    ecma = json.loads(done.stdout)
    ours = [[ecma_search(p, v) for v in ORACLE_VALUES] for p in ORACLE_PATTERNS]
    assert ours == ecma
