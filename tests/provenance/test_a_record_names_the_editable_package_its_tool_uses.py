"""A tool whose package is installed editable (``pip install -e``, PEP 660) has that distribution and its
version in its provenance record (trial 58, F8: ``packages: {}``, for the standard table lists no import
name of an editable install, whose ``RECORD`` holds only a ``.pth`` file).

The install is real and offline: a tiny hatchling project (``src`` layout, ``dev-mode-dirs``: a ``.pth``
file naming the project's ``src`` folder) installed by pip with ``-e --no-build-isolation --no-deps
--no-index --target`` into a folder the served script adds as a site folder (its ``.pth`` is read)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("hatchling")

PYPROJECT = """
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "lab-calc"
version = "3.1.4"

[tool.hatch.build.targets.wheel]
packages = ["src/labcalc"]
dev-mode-dirs = ["src"]
"""

SERVED = """
import json, site, sys
site.addsitedir(sys.argv[1])  # the --target folder: its .pth puts the project's src folder on sys.path
from labcalc import double
from nanohubmcp import MCPServer
from nanohubmcp.server.provenance.records import record_id_of

server = MCPServer("lab", state_dir=sys.argv[2])

@server.tool()
def twice(x: float) -> float:
    \"\"\"Twice x.\"\"\"
    return double(x)

server.start(port=0)
result = server.call("twice", {"x": 2})
record = server.core.provenance.find(record_id_of(result["_meta"]["io.nanohub/provenance"]))
print(json.dumps({"packages": record["packages"], "complete": record["packages_complete"]}))
server.stop()
"""


def install_and_call(project: Path, tmp_path: Path) -> dict[str, Any]:
    """Install ``project`` editable (offline) into a folder, serve a tool using it, and return its record's
    ``packages`` and ``complete``."""
    target = tmp_path / "site"
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps",
                          "--no-index", "--target", str(target), "-e", str(project)],
                         capture_output=True, text=True, timeout=300)
    assert pip.returncode == 0, pip.stderr
    assert not (target / "labcalc").exists(), "installed as a copy, not editable"

    done = subprocess.run([sys.executable, "-c", SERVED, str(target), str(tmp_path / "state")],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return answer


def test_an_editable_install_is_named_with_its_version(tmp_path: Path) -> None:
    project = tmp_path / "lab-calc"
    (project / "src" / "labcalc").mkdir(parents=True)
    (project / "pyproject.toml").write_text(PYPROJECT)
    (project / "src" / "labcalc" / "__init__.py").write_text("def double(x):\n    return 2 * x\n")
    record = install_and_call(project, tmp_path)

    assert record["packages"].get("lab-calc") == "3.1.4", record
    assert record["complete"] is True


SETUPTOOLS_PYPROJECT = """
[build-system]
requires = ["setuptools"]
build-backend = "setuptools.build_meta"

[project]
name = "lab-calc"
version = "3.1.4"

[tool.setuptools]
packages = ["labcalc"]
"""


def test_a_setuptools_editable_install_with_a_finder_is_named(tmp_path: Path) -> None:
    """setuptools' flat layout installs a finder (``__editable___*_finder.py``), no folder on ``sys.path``
    (setuptools before 70.1 builds it with the ``wheel`` package, absent from some environments)."""
    pytest.importorskip("setuptools")
    pytest.importorskip("wheel")
    project = tmp_path / "lab-calc"
    (project / "labcalc").mkdir(parents=True)
    (project / "pyproject.toml").write_text(SETUPTOOLS_PYPROJECT)
    (project / "labcalc" / "__init__.py").write_text("def double(x):\n    return 2 * x\n")
    record = install_and_call(project, tmp_path)
    assert record["packages"].get("lab-calc") == "3.1.4", record
