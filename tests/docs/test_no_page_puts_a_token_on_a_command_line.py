"""No documented command puts a bearer token on its command line (trial6 F6).

A command line is world-readable on a shared machine (``ps``, ``/proc/<pid>/cmdline``), so the pages lead
with ``MCP_TOKEN`` in the environment: no code block (a shell command, a desktop client's ``args``) passes
``--token`` (``--token-file PATH`` names a file, not the token), and a paragraph that names ``--token``
says that a command line is visible to other users.
"""

from __future__ import annotations

import re

from docs_blocks import fences, page_id, pages

_WARNS = re.compile(r"visible to (every|other) user", re.IGNORECASE)


def _paragraphs(text: str) -> list[tuple[int, str]]:
    """The prose paragraphs of a page (fenced blocks left out), each with its first line number."""
    found: list[tuple[int, str]] = []
    lines: list[str] = []
    start = 0
    fence = ""
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.strip()
        if fence:
            fence = "" if stripped.startswith(fence) else fence
            continue
        if stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
        if fence or not stripped:
            if lines:
                found.append((start, " ".join(lines)))
            lines = []
            continue
        if not lines:
            start = number
        lines.append(stripped)
    if lines:
        found.append((start, " ".join(lines)))
    return found


def test_no_code_block_passes_a_token_as_an_argument() -> None:
    problems = []
    for path in pages():
        text = path.read_text(encoding="utf-8").split("\n")
        for fence in fences(path):
            for offset, line in enumerate(text[fence.line :], fence.line + 1):
                if line.startswith(("```", "~~~")):
                    break
                if re.search(r"--token\b(?!-)", line):  # --token-file PATH is the documented way
                    problems.append(f"{page_id(path)}:{offset}: {line.strip()}")
    assert not problems, "a documented command passes the token on its command line (use MCP_TOKEN):\n" + "\n".join(
        problems
    )


def test_prose_naming_the_token_option_says_the_command_line_is_visible() -> None:
    problems = []
    for path in pages():
        for line, paragraph in _paragraphs(path.read_text(encoding="utf-8")):
            if re.search(r"`[^`]*--token\b(?!-)", paragraph) and not _WARNS.search(paragraph):
                problems.append(f"{page_id(path)}:{line}: {paragraph[:160]}")
    assert not problems, "a paragraph offers --token without saying ps shows it:\n" + "\n".join(problems)
