"""``start_mcp --help`` says what ``--public-url`` and ``--path-prefix`` default to in a hub session, the
detected weber URL and path (trial21 F9: it said "Default $MCP_PUBLIC_URL, else the request's own host");
``nanohubmcp run``, which detects no hub session, does not claim it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def help_text(*module: str) -> str:
    done = subprocess.run([sys.executable, "-m", *module, "--help"], env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=60, check=True)
    return " ".join(done.stdout.split())  # argparse wraps to the terminal's width


def test_start_mcp_help_names_the_detected_weber_url_and_path() -> None:
    text = help_text("nanohubmcp.nanohub.launcher")
    assert ("Default $MCP_PUBLIC_URL, else in a nanoHUB session the detected weber URL "
            "(https://proxy.<hub>/weber/<session>/<cookie>/<n>/), else the request's own host") in text
    assert "default $MCP_PATH_PREFIX, else in a nanoHUB tool session without wrwroxy the weber path, else /)" in text


def test_nanohubmcp_run_help_does_not_claim_a_weber_default() -> None:
    text = help_text("nanohubmcp", "run")
    assert "Default $MCP_PUBLIC_URL, else the request's own host" in text
    assert "weber" not in text
