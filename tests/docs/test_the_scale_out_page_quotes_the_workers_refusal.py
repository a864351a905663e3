"""The scale-out page and ``nanohubmcp run --workers`` agree: the command refuses ``--workers 2`` without a
shared state URL, and the page quotes the very line it prints, where the page described ``--workers N``
without Redis as a way to run (trial22 F9). The page's other mentions of a state directory shared without
Redis name the setup that has one: separate servers with one ``--state-dir``. It quotes the refusal of
``--workers`` over stdio too (trial50 F4: with a shared state URL the command served one process, saying nothing).

Source: docs/how-to/scale-out.md, "Several processes on one machine".
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from support import ROOT

PAGE = ROOT / "docs" / "how-to" / "scale-out.md"


def test_the_page_quotes_the_line_the_command_prints(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text('from nanohubmcp import MCPServer\nserver = MCPServer("app")\n')
    done = subprocess.run([sys.executable, "-m", "nanohubmcp", "run", "app.py", "--workers", "2"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, check=False,
                          env={k: v for k, v in os.environ.items() if k != "NANOHUBMCP_STATE_URL"})
    assert done.returncode == 2, done.stderr
    refusal = done.stderr.strip().splitlines()[-1]
    assert refusal.startswith("nanohubmcp run: error: --workers 2 needs a shared state store")
    assert f"\n{refusal}\n" in PAGE.read_text()


def test_the_page_quotes_the_stdio_refusal_every_serving_command_prints(tmp_path: Path) -> None:
    (tmp_path / "tool.xml").write_text("never read")
    done = subprocess.run([sys.executable, "-m", "nanohubmcp", "rappture", "tool.xml", "--transport", "stdio",
                           "--workers", "2", "--state-url", "redis://127.0.0.1:1/0"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, check=False)
    assert done.returncode == 2, done.stderr
    refusal = done.stderr.strip().splitlines()[-1]
    assert refusal.startswith("nanohubmcp rappture: error: --workers 2 serves HTTP only"), refusal
    assert f"\n{refusal}\n" in PAGE.read_text()


def test_no_mention_of_a_shared_state_directory_offers_workers_without_redis() -> None:
    text = " ".join(PAGE.read_text().split())
    assert re.findall(r"`--workers N` without Redis", text) == []
    assert text.count("separate servers with one `--state-dir`, no Redis") == 2
