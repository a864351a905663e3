"""MCP Apps tests run the example servers with ``tests/examples/example_process.py``; its directory
is put on ``sys.path`` here so these tests also run on their own."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
