"""A ``pattern``'s ``.`` stops at every line terminator, and a ``patternProperties`` key is read as ECMA-262 too
(JSON Schema 2020-12 Validation § 6.3.3, Core § 10.3.2.2: ECMA-262 regular expressions; ECMA-262 § 22.2.2.7).

Before: a ``pattern``'s ``.`` was Python's, which stops at ``\\n`` alone, so ``^.+$`` let ``"a\\rb"`` (and U+2028,
U+2029) run the tool where a client's validator refuses it; and ``patternProperties`` keys were run by jsonschema's
``re.search`` as Python reads them (``$`` before a final newline, Unicode ``\\d``/``\\w``, Python's ``.``), for
``patternProperties`` itself and for the ``additionalProperties`` that depends on it:
``"x_a\\n"`` passed ``additionalProperties: false`` beside ``^x_\\w+$``, and a key ``"n_١٢"`` was held to the
integer schema of ``^n_\\d+$`` and its string value refused. Checked through the official ``mcp`` client against a
served tool, and against node's ``RegExp`` where node is installed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.schema.ecma_pattern import ecma_search

DOTS = [  # (pattern, text, valid)
    ("^.$", "a", True), ("^.$", "\r", False), ("^.$", "\n", False), ("^.$", "\u2028", False),
    ("^.$", "\u2029", False), ("^.$", "\x85", True), ("^.+$", "a\rb", False), ("^a.c$", "abc", True),
    ("^[.]$", ".", True), ("^[.]$", "\r", False), (r"^a\.c$", "a.c", True), (r"^a\.c$", "abc", False),
    ("^[^.]$", "\r", True), ("^.{2}$", "\u2028\u2029", False),
]
KEYS = {  # a property of an object schema -> (arguments, valid)
    "tags": [({"x_ab": 1}, True), ({"x_ab\n": 1}, False), ({"x_é": 1}, False), ({"y": 1}, False)],
    "counts": [({"n_12": 3}, True), ({"n_12": "three"}, False), ({"n_\u0661\u0662": "text"}, True),
               ({"n_1\n": "text"}, True)],
    "marks": [({"m_a": 1}, True), ({"m_a": "text"}, False), ({"m_\r": "text"}, True), ({"m_\u2028": "text"}, True),
              ({"q": 1}, True)],
    "names": [({"abc": 1}, True), ({"abc\n": 1}, False), ({"a.c": 1}, False)],
}
SCHEMA: dict[str, Any] = {"type": "object", "properties": {
    "tags": {"type": "object", "patternProperties": {r"^x_\w+$": {"type": "integer"}}, "additionalProperties": False},
    "counts": {"type": "object", "patternProperties": {r"^n_\d+$": {"type": "integer"}},
               "additionalProperties": {"type": "string"}},
    "marks": {"type": "object", "patternProperties": {"^m_.$": {"type": "integer"}}},
    "names": {"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}},
}}


def build(ran: list[str]) -> MCPServer:
    server = MCPServer("ecma-dots", provenance=False)
    for index, pattern in enumerate(sorted({pattern for pattern, _, _ in DOTS})):
        def check(text: str) -> str:
            """Take text the pattern matches."""
            ran.append(text)
            return text

        schema = {"type": "object", "properties": {"text": {"type": "string", "pattern": pattern}},
                  "required": ["text"]}
        server.add_tool(check, name=f"check_{index}", input_schema=schema)

    def keyed(**given: Any) -> str:
        """Take objects whose keys the schema's patterns allow."""
        return json.dumps(given)

    server.add_tool(keyed, name="keyed", input_schema=SCHEMA)
    return server


async def answers() -> tuple[list[bool], dict[str, list[bool]]]:
    patterns = sorted({pattern for pattern, _, _ in DOTS})
    with serve(build([])) as url, anyio.fail_after(60):
        async with mcp_client(url + "mcp") as client:
            dots = [not (await client.call_tool(f"check_{patterns.index(p)}", {"text": v})).is_error
                    for p, v, _ in DOTS]
            keys = {name: [not (await client.call_tool("keyed", {name: value})).is_error for value, _ in cases]
                    for name, cases in KEYS.items()}
    return dots, keys


@pytest.mark.anyio
async def test_dots_and_property_patterns_are_answered_as_ecma_262_reads_them_through_the_official_client() -> None:
    dots, keys = await answers()
    assert [case for case, valid in zip(DOTS, dots, strict=True) if valid is not case[2]] == []  # was: \r, U+2028
    wrong = {name: [value for (value, expected), valid in zip(KEYS[name], keys[name], strict=True)
                    if valid is not expected] for name in KEYS}
    assert wrong == {name: [] for name in KEYS}  # was: tags x_ab\n, x_é; counts n_١٢; marks m_\r, m_\u2028


@pytest.mark.anyio
async def test_a_generated_dict_key_pattern_is_read_as_ecma_262_too() -> None:
    server = MCPServer("keys", provenance=False)

    @server.tool()
    def weights(by_index: dict[int, float]) -> float:
        """Sum weights given by index."""
        return sum(by_index.values())

    with serve(server) as url, anyio.fail_after(60):
        async with mcp_client(url + "mcp") as client:
            summed = await client.call_tool("weights", {"by_index": {"1": 0.5, "-2": 0.25}})
            refused = await client.call_tool("weights", {"by_index": {"1\n": 0.5}})
    assert summed.content[0].text == "0.75"  # type: ignore[union-attr]
    assert refused.is_error
    assert "does not match" in refused.content[0].text  # type: ignore[union-attr]


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node (an ECMA-262 engine) as the oracle")
def test_the_dot_cases_agree_with_an_ecma_262_engine() -> None:
    """node's ``RegExp(pattern, "u")`` (what ajv compiles) is the oracle for each case."""
    script = ("const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
              "console.log(JSON.stringify(cases.map(([p, v]) => new RegExp(p, 'u').test(v))));")
    cases = [*[(p, v) for p, v, _ in DOTS], (r"^x_\w+$", "x_ab\n"), (r"^x_\w+$", "x_é"), (r"^n_\d+$", "n_١٢"),
             ("^m_.$", "m_\r"), ("^[a-z]+$", "abc\n")]
    done = subprocess.run(["node", "-e", script], input=json.dumps(cases), capture_output=True, text=True,
                          timeout=60, check=True)
    assert json.loads(done.stdout) == [ecma_search(p, v) for p, v in cases]
    assert json.loads(done.stdout)[:len(DOTS)] == [valid for _, _, valid in DOTS]
