"""The magic table of getting-started/notebook.md lists every ``%mcp`` action the magic's parser takes
and every option of the ``%%mcp_*`` cell magics (cellspec's option tables, which the magics and the
exporter share). A fresh-user trial found ``history``, ``rappture``, ``sim2l`` and ``--no-provenance``
only on other pages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nanohubmcp.jupyter import cellspec
from nanohubmcp.jupyter.magics import ACTIONS

ROOT = Path(__file__).resolve().parents[2]
GROUPS = ("--slurm-", "--submit-")
"""Families the table gives by one member and ``...`` (``[--slurm-time T ...]``)."""


def synopses(prefix: str) -> str:
    """The first cells of the table's rows that start with ``prefix``, joined."""
    text = (ROOT / "docs" / "getting-started" / "notebook.md").read_text()
    cells = [line.split("` |", 1)[0] for line in text.splitlines() if line.startswith(f"| `{prefix}")]
    assert cells, f"notebook.md's magic table has no row for {prefix}"
    return "\n".join(cells)


def test_every_mcp_action_is_in_the_table() -> None:
    listed = set(re.findall(r"(?:%mcp |\\\| )([a-z0-9]+)", synopses("%mcp ")))
    assert set(ACTIONS) - listed == set()


@pytest.mark.parametrize(
    ("magic", "options"),
    [
        ("%%mcp_tool ", cellspec.TOOL_OPTIONS),
        ("%%mcp_resource ", cellspec.RESOURCE_OPTIONS),
        ("%%mcp_prompt ", cellspec.PROMPT_OPTIONS),
        ("%%mcp_view ", cellspec.VIEW_OPTIONS),
    ],
)
def test_every_cell_magic_option_is_in_the_table(magic: str, options: tuple[cellspec.Option, ...]) -> None:
    row = synopses(magic)
    missing = [
        flag for option in options for flag in option.flags
        if flag.startswith("--") and flag not in row
        and not any(flag.startswith(group) and f"{group}" in row and "..." in row for group in GROUPS)
    ]
    assert missing == []
