"""A ``%%mcp_tool`` function and a ``%mcp rappture`` tool of the same name replace each other with a warning that
names the Rappture tool by its file (``the Rappture tool /path/tool.xml``, not ``/path/tool.xml.fermi``), shown at
the notebook's line (``Cell In[N]:L``) for the line magic too (it named IPython's interactiveshell.py), and
``%mcp tools`` lists the tool that serves (a Rappture tool runs on the ``server``, not the ``pool`` of the function it
replaced). Real kernel.

Found by a fresh-user trial (trial64 F8)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from kernels import LiveKernel

pytestmark = pytest.mark.slow

FERMI = Path(__file__).resolve().parents[2] / "examples" / "rappture" / "fermi" / "tool.xml"
FUNCTION = '''%%mcp_tool
def fermi(energy: float) -> float:
    """A stand-in."""
    return energy
'''
CLASH = "RegistrationWarning: tool 'fermi' replaces a different function of that name: it was {}, now it is {} "


def tools_line(kernel: LiveKernel) -> list[str]:
    listed = kernel.run_ok("%mcp tools").stdout.splitlines()
    return next(line.split()[:2] for line in listed if line.startswith("fermi "))


def test_the_warning_names_the_rappture_tool_at_the_cells_line_and_the_listing_follows(kernel: LiveKernel) -> None:
    kernel.run_ok(FUNCTION)
    assert tools_line(kernel) == ["fermi", "pool"]
    replaced = kernel.run_ok(f"x = 1\n%mcp rappture {FERMI}")
    rappture = f"the Rappture tool {FERMI}"
    assert CLASH.format("__main__.fermi", rappture) in replaced.stderr, replaced.stderr
    assert re.search(r"Cell In\[\d+\]:2: RegistrationWarning", replaced.stderr), replaced.stderr  # the magic's line
    assert "interactiveshell.py" not in replaced.stderr
    assert tools_line(kernel) == ["fermi", "server"]

    back = kernel.run_ok(FUNCTION)
    assert CLASH.format(rappture, "__main__.fermi") in back.stderr, back.stderr
    assert tools_line(kernel) == ["fermi", "pool"]
