"""The build hook refuses a standard wheel whose JupyterLab panel was not built first
(a wheel built before scripts/build-labextension used to ship without the panel, silently)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def hook(root: Path, target: str = "wheel") -> Any:
    spec = importlib.util.spec_from_file_location("hatch_build", ROOT / "hatch_build.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.LabExtensionCheck(str(root), {}, None, None, str(root / "dist"), target)


def test_a_wheel_without_the_built_panel_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NANOHUBMCP_SKIP_LABEXTENSION", raising=False)
    with pytest.raises(RuntimeError, match="scripts/build-labextension"):
        hook(tmp_path).initialize("standard", {})


def test_editable_installs_and_an_explicit_opt_out_need_no_panel(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hook(tmp_path).initialize("editable", {})
    monkeypatch.setenv("NANOHUBMCP_SKIP_LABEXTENSION", "1")
    hook(tmp_path).initialize("standard", {})


def test_a_built_panel_passes(tmp_path: Path) -> None:
    built = tmp_path / "nanohubmcp" / "labextension"
    built.mkdir(parents=True)
    (built / "package.json").write_text("{}")
    hook(tmp_path).initialize("standard", {})
