"""What the browser tests need: the built panel, a wheel installed from it, a real ``jupyter lab``.

- :func:`built_extension` returns ``nanohubmcp/labextension`` (built by ``scripts/build-labextension``;
  under ``CI=true`` a missing build is made here, locally the test is skipped).
- :func:`install_wheel` builds the wheel with pip and installs it, without dependencies, into
  a private prefix; its ``share/jupyter`` is what ``JUPYTER_PATH`` then points at.
- :class:`LabServer` runs ``jupyter lab`` on 127.0.0.1 with a token and isolated config, data,
  workspace and IPython directories, and stops it by its own pid. Every wait is bounded.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jupyter_servers import free_port, server_environment, stop_group

ROOT = Path(__file__).resolve().parents[2]
BUILT = ROOT / "nanohubmcp" / "labextension"
EXTENSION = "nanohub-mcp"
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = ROOT / "test-artifacts"


def missing(what: str) -> None:
    """Skip locally; fail under CI, where a missing install step must not hide behind a skip."""
    if os.environ.get("CI"):
        pytest.fail(f"{what}; CI must provide it (scripts/install-test-system-deps, "
                    "scripts/build-labextension)")
    pytest.skip(what)


def bin_path(name: str) -> Path:
    """A console script of this interpreter's environment."""
    return Path(sys.executable).parent / name


def built_extension() -> Path:
    """The prebuilt extension folder (builds it under CI when missing and node is there)."""
    if not (BUILT / "package.json").is_file() and os.environ.get("CI") and shutil.which("node"):
        env = {**os.environ, "PYTHON": sys.executable}  # jupyter-builder comes from this environment
        subprocess.run([str(ROOT / "scripts" / "build-labextension")], env=env, check=True, timeout=900)
    if not (BUILT / "package.json").is_file():
        missing("the panel is not built: run scripts/build-labextension")
    return BUILT


def install_wheel(dest: Path) -> Path:
    """``pip wheel`` the checkout, ``pip install`` it into ``dest/prefix``; returns its share/jupyter."""
    built_extension()
    wheels = dest / "wheels"
    prefix = dest / "prefix"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", "-w", str(wheels), str(ROOT)], check=True, timeout=300)
    (wheel,) = wheels.glob("nanohub_mcp-*.whl")
    subprocess.run(
        [*pip, "install", "--no-deps", "--ignore-installed", "--no-warn-script-location",
         "--prefix", str(prefix), str(wheel)],
        check=True,
        timeout=300,
    )
    return prefix / "share" / "jupyter"


class LabServer:
    """A ``jupyter lab`` process serving ``root_dir`` on 127.0.0.1 (see the module docstring).

    Args:
        home: a scratch directory for config, data, runtime, workspaces and IPython.
        root_dir: the notebooks' directory (``root``).
        jupyter_path: extra Jupyter data path (where the wheel put the extension).
    """

    def __init__(self, home: Path, root_dir: Path, jupyter_path: Path) -> None:
        self.port = free_port()
        self.root = root_dir
        self.token = secrets.token_hex(16)
        self.url = f"http://127.0.0.1:{self.port}"
        config = home / "config"
        (config / "labconfig").mkdir(parents=True, exist_ok=True)
        # The "news" toast would cover the bottom of screenshots.
        (config / "labconfig" / "page_config.json").write_text(
            json.dumps({"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True}})
        )
        env = server_environment(home, jupyter_path)
        self.env = env
        self.log_path = home / "lab.log"
        self._log = self.log_path.open("wb")
        self.process = subprocess.Popen(
            [
                str(bin_path("jupyter-lab")), "--no-browser", "--allow-root",
                "--ip=127.0.0.1", f"--port={self.port}", "--ServerApp.port_retries=0",
                f"--IdentityProvider.token={self.token}", f"--ServerApp.root_dir={root_dir}",
                f"--LabApp.workspaces_dir={home / 'workspaces'}", "--LabApp.expose_app_in_browser=True",
            ],
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            cwd=root_dir,
            start_new_session=True,
        )
        self._wait_ready(60.0)

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        headers = {"Authorization": f"token {self.token}"}
        request = urllib.request.Request(f"{self.url}/api/status", headers=headers)
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"jupyter lab exited ({self.process.returncode}):\n{self.log()}")
            try:
                with urllib.request.urlopen(request, timeout=2):
                    return
            except OSError:
                time.sleep(0.25)
        raise TimeoutError(f"jupyter lab did not answer within {timeout} s:\n{self.log()}")

    def page_url(self, path: str, workspace: str | None = None) -> str:
        """The page opening the notebook ``path``; in the named JupyterLab ``workspace`` (a layout of its own,
        nothing of another test's pages restored) when given, else in the default one."""
        where = f"/lab/workspaces/{workspace}" if workspace else "/lab"
        return f"{self.url}{where}/tree/{path}?token={self.token}"

    def log(self) -> str:
        if not self._log.closed:
            self._log.flush()
        return self.log_path.read_text(errors="replace")[-4000:]

    def stop(self) -> None:
        """SIGTERM the server's process group (it and its kernels), SIGKILL after 15 s."""
        stop_group(self.process)
        self._log.close()


def notebook(cells: list[str]) -> dict[str, Any]:
    """A minimal nbformat 4 notebook of code cells (the venv's python3 kernel)."""
    return {
        "cells": [
            {"cell_type": "code", "execution_count": None, "id": f"cell-{i}", "metadata": {},
             "outputs": [], "source": source}
            for i, source in enumerate(cells)
        ],
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


@contextlib.contextmanager
def lab_serving(cells: list[str], jupyter_path: Path, tmp_path: Path) -> Iterator[LabServer]:
    """JupyterLab serving ``panel.ipynb`` (made of ``cells``) with the wheel's panel; stopped after."""
    if not bin_path("jupyter-lab").exists():
        missing("jupyterlab is not installed (pip install -e '.[lab]')")
    root = tmp_path / "notebooks"
    root.mkdir()
    (root / "panel.ipynb").write_text(json.dumps(notebook(cells)))
    server = LabServer(tmp_path / "home", root, jupyter_path)
    try:
        yield server
    finally:
        server.stop()
