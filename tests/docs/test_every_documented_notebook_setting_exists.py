"""Every ``NanohubMCP.<setting>`` the documentation names (``c.NanohubMCP.x = ...``, ``%config
NanohubMCP.x``) is a setting of the ``NanohubMCP`` configurable, and the settings section of
getting-started/notebook.md names every one of them. A fresh-user trial followed provenance.md's
``c.NanohubMCP.provenance = False``, which did not exist: traitlets only warned "not recognized" and
records kept being written."""

from __future__ import annotations

import re
from pathlib import Path

from nanohubmcp.jupyter.config import NanohubMCP

ROOT = Path(__file__).resolve().parents[2]


def settings() -> set[str]:
    return set(NanohubMCP.class_trait_names(config=True))


def documented() -> dict[str, list[str]]:
    """Setting name -> the files naming it."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "notebooks").rglob("*.ipynb"))]
    found: dict[str, list[str]] = {}
    for page in pages:
        for name in re.findall(r"NanohubMCP\.([A-Za-z_]\w*)", page.read_text()):
            found.setdefault(name, []).append(str(page.relative_to(ROOT)))
    return found


def test_every_setting_the_docs_name_exists() -> None:
    names = documented()
    assert "provenance" in names  # the reader sees the pages (provenance.md names it)
    missing = {name: sorted(set(pages)) for name, pages in names.items() if name not in settings()}
    assert not missing, f"documented but not a NanohubMCP setting: {missing}"


def test_the_notebook_page_lists_every_setting() -> None:
    text = (ROOT / "docs" / "getting-started" / "notebook.md").read_text()
    found = re.search(r"^Settings are traitlets on the `NanohubMCP` configurable.*?(?=^#)", text, re.M | re.S)
    assert found, "notebook.md has a section opening 'Settings are traitlets on the `NanohubMCP` configurable ...'"
    listed = set(re.findall(r"`([a-z_]+)`", found[0]))
    assert settings() - listed == set(), "settings the section does not name"
