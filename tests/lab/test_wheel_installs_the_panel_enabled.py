"""``pip install`` of the wheel puts the prebuilt panel where JupyterLab finds it, enabled."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from lab_setup import EXTENSION, bin_path, missing

pytestmark = pytest.mark.slow


def test_the_wheel_carries_the_prebuilt_panel_and_jupyter_lists_it_enabled(
    wheel_jupyter_path: Path, tmp_path: Path
) -> None:
    folder = wheel_jupyter_path / "labextensions" / EXTENSION
    meta = json.loads((folder / "package.json").read_text())
    assert meta["name"] == EXTENSION
    assert meta["jupyterlab"]["_build"]["load"].startswith("static/remoteEntry.")
    assert (folder / meta["jupyterlab"]["_build"]["load"]).is_file()
    assert json.loads((folder / "install.json").read_text())["packageName"] == "nanohub-mcp"

    jupyter = bin_path("jupyter")
    if not bin_path("jupyter-labextension").exists():
        missing("jupyterlab is not installed (pip install -e '.[lab]')")
    env = {
        **os.environ,
        "JUPYTER_PATH": str(wheel_jupyter_path),
        "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
        "JUPYTER_DATA_DIR": str(tmp_path / "data"),
    }
    listed = subprocess.run(
        [str(jupyter), "labextension", "list"], env=env, capture_output=True, text=True, timeout=120
    )
    assert listed.returncode == 0, listed.stderr
    text = re.sub(r"\x1b\[[0-9;]*m", "", listed.stdout + listed.stderr)  # colours
    section = text.split(str(wheel_jupyter_path / "labextensions"), 1)[1]
    line = next(line for line in section.splitlines() if EXTENSION in line)
    assert line.split() == [EXTENSION, f"v{meta['version']}", "enabled", "OK", "(python,", "nanohub-mcp)"]


def test_the_wheel_enables_the_jupyter_server_extension(wheel_jupyter_path: Path) -> None:
    from jupyter_server.extension.config import ExtensionConfigManager
    from jupyter_server.extension.manager import ExtensionPackage

    etc = wheel_jupyter_path.parent.parent / "etc" / "jupyter"
    config = json.loads((etc / "jupyter_server_config.d" / "nanohubmcp.json").read_text())
    assert config == {"ServerApp": {"jpserver_extensions": {"nanohubmcp.jupyter.serverext": True}}}
    # What Jupyter Server reads from that etc/jupyter (the environment's config path), and loads.
    enabled = ExtensionConfigManager(read_config_path=[str(etc)]).get_jpserver_extensions()
    assert enabled == {"nanohubmcp.jupyter.serverext": True}
    package = ExtensionPackage(name="nanohubmcp.jupyter.serverext", enabled=True)
    assert package.validate()
