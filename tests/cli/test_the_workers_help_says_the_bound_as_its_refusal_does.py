"""``nanohubmcp run --help`` says ``--workers``' bound as the refusal of a count past it does (trial61 F2).

The help read ``default 1; at most 8 per CPU, at least 64)``: read literally, a lower bound of 64 processes,
against ``default 1``. The refusal says ``from 1 to 64 (8 per CPU, never fewer than 64)``; the help now says
the same, with this machine's bound.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from nanohubmcp.transports.limit_option import most_workers


@pytest.mark.parametrize("command", ["run", "sim2l"])
def test_the_help_says_from_1_to_the_bound(command: str) -> None:
    shown = subprocess.run([sys.executable, "-m", "nanohubmcp", command, "--help"], capture_output=True, text=True,
                           check=True, env={**os.environ, "COLUMNS": "1000"}).stdout
    line = next(line for line in shown.splitlines() if line.strip().startswith("--workers N"))
    assert (f"default 1; a number of processes from 1 to {most_workers()} (8 per CPU, never fewer than 64)"
            in line)
    assert "at least 64" not in line
