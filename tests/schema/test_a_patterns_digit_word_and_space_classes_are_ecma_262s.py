"""A ``pattern``'s ``\\d``, ``\\w``, ``\\b`` are ASCII and its ``\\s`` is ECMA-262's white space, as JSON Schema means
them (2020-12 Validation § 6.3.3: an ECMA-262 regular expression; ECMA-262 § 22.2.2.9).

Before: Python's ``re`` read them as Unicode classes, so ``"pattern": "^\\\\d+$"`` let ``"١٢٣"`` (Arabic-Indic
digits) run the tool, ``^\\\\w+$`` let ``"é"`` through, and ``^\\\\s$`` refused U+FEFF but took U+0085 and U+001C:
what a client's validator (ajv, the TypeScript SDK) refuses, our check accepted. The cases are the JSON Schema Test
Suite's (``optional/ecmascript-regex.json``), checked through the official ``mcp`` client against a served tool, and
against node's ``RegExp`` where node is installed.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.schema.ecma_pattern import ecma_search

SPACES = [" ", "\t", "\x0b", "\x0c", "\xa0", "\ufeff", "\n", "\u2029", "\u2003"]
NOT_SPACES = ["\x01", "\u2013", "\x1c", "\x1f", "\x85"]
CASES = [  # (pattern, value, valid): the suite's, then what Python's and ECMA-262's classes differ on
    (r"^\d$", "0", True), (r"^\d$", "\u07c0", False), (r"^\D$", "\u07c0", True), (r"^\d+$", "42", True),
    (r"^\d+$", "\u09ea\u09e8", False), (r"^\d+$", "\u0661\u0662\u0663", False),
    (r"^\w$", "a", True), (r"^\w$", "é", False), (r"^\W$", "é", True), (r"^\W$", "a", False),
    (r"\wcole", "l'école", False), (r"\wcole", "l'ecole", True), (r"[a-z]cole", "l'école", False),
    *[(r"^\s$", space, True) for space in SPACES], *[(r"^\S$", space, False) for space in SPACES],
    *[(r"^\s$", other, False) for other in NOT_SPACES], *[(r"^\S$", other, True) for other in NOT_SPACES],
    (r"\bcole", "écoles", True), (r"^[\d]+$", "\u0663", False), (r"^[\w-]+$", "a-b", True), (r"^[\w-]+$", "é", False),
    (r"^[\s,]+$", "\ufeff,", True), (r"^[^\s]$", "\ufeff", False), (r"^[^\s]$", "\x85", True),
    (r"^[\S]$", "\ufeff", False), (r"^[a\S]$", " ", False), (r"^[a\S]$", "\x85", True),
    (r"^[^a\S]$", "\ufeff", True), (r"^[^a\S]$", "x", False), (r"^[^a\S]$", "a", False),
]


def build(ran: list[str]) -> MCPServer:
    server = MCPServer("ecma-classes", provenance=False)
    for index, pattern in enumerate(sorted({pattern for pattern, _, _ in CASES})):
        def check(text: str) -> str:
            """Take text the pattern matches."""
            ran.append(text)
            return text

        schema = {"type": "object", "properties": {"text": {"type": "string", "pattern": pattern}},
                  "required": ["text"]}
        server.add_tool(check, name=f"check_{index}", input_schema=schema)
    return server


@pytest.mark.anyio
async def test_the_suites_cases_are_answered_as_ecma_262_reads_them_through_the_official_client() -> None:
    patterns = sorted({pattern for pattern, _, _ in CASES})
    ran: list[str] = []
    with serve(build(ran)) as url, anyio.fail_after(60):
        async with mcp_client(url + "mcp") as client:
            answers = [await client.call_tool(f"check_{patterns.index(p)}", {"text": v}) for p, v, _ in CASES]
    wrong = [(pattern, value, valid) for (pattern, value, valid), answer in zip(CASES, answers, strict=True)
             if answer.is_error is valid]
    assert not wrong  # was: \d, \w took non-ASCII digits and letters; \s refused U+FEFF, took U+0085
    refused = next(a for (p, v, _), a in zip(CASES, answers, strict=True) if (p, v) == (r"^\d+$", "\u0661\u0662\u0663"))
    assert "does not match" in refused.content[0].text  # type: ignore[union-attr]


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node (an ECMA-262 engine) as the oracle")
def test_the_classes_agree_with_an_ecma_262_engine() -> None:
    """node's ``RegExp(pattern, "u")`` (what ajv compiles) is the oracle for each case."""
    script = ("const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
              "console.log(JSON.stringify(cases.map(([p, v]) => new RegExp(p, 'u').test(v))));")
    done = subprocess.run(["node", "-e", script], input=json.dumps([[p, v] for p, v, _ in CASES]),
                          capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(done.stdout) == [valid for _, _, valid in CASES]
    assert [ecma_search(p, v) for p, v, _ in CASES] == [valid for _, _, valid in CASES]
