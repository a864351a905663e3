"""The port the README and contributing.md give ``mkdocs serve`` is no port a getting-started page serves an
example on (trial58 F11: script.md's data_analysis example and ``mkdocs serve`` both took 8001, and a newcomer
following both got "address already in use")."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_mkdocs_serve_has_a_port_of_its_own() -> None:
    docs_ports = {port for page in (ROOT / "README.md", ROOT / "docs" / "contributing.md")
                  for port in re.findall(r"mkdocs serve -a 127\.0\.0\.1:(\d+)", page.read_text())}
    assert docs_ports, "README.md / contributing.md no longer say mkdocs serve's port"
    for page in sorted((ROOT / "docs" / "getting-started").glob("*.md")):
        served = set(re.findall(r"--port (\d+)", page.read_text()))
        assert not served & docs_ports, f"{page.name} serves on {sorted(served & docs_ports)}, mkdocs serve's port"
