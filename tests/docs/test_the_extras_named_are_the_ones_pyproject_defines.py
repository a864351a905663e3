"""The extras the documentation names are the ones ``pyproject.toml`` defines (trial9 D2: README, the
script page and the home page each listed a different subset): the table of getting-started/script.md
lists each extra once, and the home page's list names the same ones."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def defined() -> list[str]:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    with (ROOT / "pyproject.toml").open("rb") as stream:
        return sorted(tomllib.load(stream)["project"]["optional-dependencies"])


def test_the_installation_table_lists_every_extra_once() -> None:
    text = (ROOT / "docs" / "getting-started" / "script.md").read_text()
    rows = re.findall(r"^\| `([a-z0-9-]+)` \|", text, re.M)
    assert sorted(rows) == defined()


def test_the_home_page_names_the_same_extras() -> None:
    text = (ROOT / "docs" / "index.md").read_text()
    found = re.search(r"The extras \(([^)]*)\)", text)
    assert found, "docs/index.md lists the extras as 'The extras (`a`, `b`, ...)'"
    assert sorted(re.findall(r"`([a-z0-9-]+)`", found[1])) == defined()


def test_the_docs_extra_installs_what_formats_the_signatures() -> None:
    # trial79 NIT: mkdocs build from the docs extra logged "Formatting signatures requires either Black or Ruff"
    tomllib = pytest.importorskip("tomllib")
    with (ROOT / "pyproject.toml").open("rb") as stream:
        docs = tomllib.load(stream)["project"]["optional-dependencies"]["docs"]
    assert {re.split(r"[<>=\[ ]", requirement)[0] for requirement in docs} & {"ruff", "black"}, docs
