"""The README's quick start and getting-started/script.md's save the same ``start_mcp.py`` (trial8 D4:
they differed, so the README's server answered the script page's "Testing your server" with other
counts than the page shows)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"<!-- file: start_mcp\.py -->\n```python\n(.*?)```", re.S)


def test_both_pages_save_the_same_file() -> None:
    readme = BLOCK.search((ROOT / "README.md").read_text())
    script = BLOCK.search((ROOT / "docs" / "getting-started" / "script.md").read_text())
    assert readme, "README.md has a start_mcp.py block"
    assert script, "script.md has a start_mcp.py block"
    assert readme[1] == script[1]
