"""The JupyterLab panel's package (labextension/package.json), the docs and the Python package agree: the
`lab` extra admits no JupyterLab the built panel is not built for (trial21 F1b: `jupyterlab>=4.2` let 4.2.7
in, where `jupyter labextension list` calls the panel "not compatible"), and the panel's version and the
API summary's are the package's, so a release bump cannot forget one of them (trial21 F6, F7)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from nanohubmcp._version import __version__

ROOT = Path(__file__).resolve().parents[2]


def panel() -> dict:
    return json.loads((ROOT / "labextension" / "package.json").read_text())


def lab_extra() -> list[str]:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return project["optional-dependencies"]["lab"]


def npm_spelling(version: str) -> str:
    """PEP 440's 1.0.0.dev0 / 1.0.0a1 / 1.0.0rc2 as npm semver spells them (1.0.0-dev.0, 1.0.0-alpha.1,
    1.0.0-rc.2), the mapping JupyterLab's own packages use."""
    match = re.fullmatch(r"(\d+\.\d+\.\d+)(?:\.?(dev|a|b|rc)(\d+))?", version)
    assert match, f"{version!r} is not a version this test knows how to spell for npm"
    release, kind, number = match.groups()
    if kind is None:
        return release
    label = {"dev": "dev", "a": "alpha", "b": "beta", "rc": "rc"}[kind]
    return f"{release}-{label}.{number}"


def test_the_lab_extra_requires_the_jupyterlab_the_panel_is_built_for() -> None:
    # @jupyterlab/application's version is JupyterLab's own (4.6.x ships @jupyterlab/application 4.6.x).
    wanted = panel()["dependencies"]["@jupyterlab/application"]
    caret = re.fullmatch(r"\^(\d+)\.(\d+)\.\d+", wanted)
    assert caret, f"labextension/package.json: @jupyterlab/application {wanted!r} is not a ^X.Y.Z range"
    major, minor = caret.groups()
    assert lab_extra() == [f"jupyterlab>={major}.{minor}"], (
        f"the lab extra should require the JupyterLab the panel is built for ({wanted})")


def test_the_docs_name_the_jupyterlab_the_panel_needs() -> None:
    major, minor = lab_extra()[0].removeprefix("jupyterlab>=").split(".")
    page = (ROOT / "docs" / "how-to" / "jupyterlab-panel.md").read_text()
    assert f"JupyterLab {major}.{minor} or later" in page


def test_the_panel_version_is_the_package_version_in_npm_spelling() -> None:
    assert panel()["version"] == npm_spelling(__version__)
    lock = json.loads((ROOT / "labextension" / "package-lock.json").read_text())
    assert lock["version"] == lock["packages"][""]["version"] == panel()["version"]


def test_the_npm_spelling() -> None:
    assert npm_spelling("1.0.0.dev0") == "1.0.0-dev.0"
    assert npm_spelling("1.2.3rc2") == "1.2.3-rc.2"
    assert npm_spelling("1.0.0a1") == "1.0.0-alpha.1"
    assert npm_spelling("2.0.0") == "2.0.0"


def test_the_api_summary_shows_the_version_the_commands_print() -> None:
    # trial21 F6: the page showed `start_mcp 1.0.0` while the package printed 1.0.0.dev0.
    page = (ROOT / "docs" / "api" / "summary.md").read_text()
    shown = re.findall(r"`start_mcp (\d[^`]*)`", page)
    assert shown == [__version__]
