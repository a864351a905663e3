"""``start_mcp --version`` prints ``start_mcp <version>`` and exits 0, as ``nanohubmcp --version`` prints
``nanohubmcp <version>``; it was argparse's "unrecognized arguments: --version", exit 2 (trial12)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from nanohubmcp import __version__

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("module", "program"), [("nanohubmcp.nanohub.launcher", "start_mcp"), ("nanohubmcp", "nanohubmcp")]
)
def test_both_commands_print_their_name_and_the_package_version(module: str, program: str) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-m", module, "--version"], capture_output=True, text=True, env=env, timeout=60, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, f"{program} {__version__}\n", "")
