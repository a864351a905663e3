"""No docstring or comment names a document that ships outside this repository.

The code explains itself or cites the MCP specification section it follows; a pointer to a
design note a reader of the package cannot open explains nothing.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SEARCHED = ["nanohubmcp", "tests", "scripts", "bench", "examples", "notebooks", "labextension/src", "README.md", "docs"]
SUFFIXES = {".py", ".md", ".ts", ".tsx", ".sh", ""}
# Pieces joined here so this file does not match itself.
OUTSIDE = re.compile("|".join(["design" + "/", "reference" + "/", "rulings" + r"\.md", "study" + " § f"]))


def files() -> list[Path]:
    found: list[Path] = []
    for name in SEARCHED:
        path = ROOT / name
        if path.is_file():
            found.append(path)
        elif path.is_dir():
            found += [
                p
                for p in path.rglob("*")
                if p.is_file()
                and p.suffix in SUFFIXES
                and "__pycache__" not in p.parts
                and "node_modules" not in p.parts
                # installed packages, e.g. bench/.venv-peers that bench/run.py creates
                and not any(part.startswith(".venv") for part in p.relative_to(ROOT).parts)
            ]
    return found


def test_the_search_covers_the_package_and_its_tests() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in files()}
    assert "nanohubmcp/facade.py" in names
    assert "tests/test_public_api.py" in names
    assert "scripts/conformance" in names


def test_no_file_points_at_design_notes_outside_the_repository() -> None:
    hits = []
    for path in files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert hits == []
