"""Build hook: refuse to build a wheel without the prebuilt JupyterLab panel.

The panel is built by ``scripts/build-labextension`` (node from the npm registry) into
``nanohubmcp/labextension/``; a wheel built before that would silently ship without it.
Editable installs (development) do not need it. Set ``NANOHUBMCP_SKIP_LABEXTENSION=1`` to build a
wheel without the panel on purpose.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class LabExtensionCheck(BuildHookInterface):  # type: ignore[misc]
    """Fails a standard wheel build when the panel was not built first."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        if os.environ.get("NANOHUBMCP_SKIP_LABEXTENSION") == "1":
            return
        built = Path(self.root) / "nanohubmcp" / "labextension" / "package.json"
        if not built.is_file():
            raise RuntimeError(
                "the JupyterLab panel is not built: run scripts/build-labextension first "
                "(or set NANOHUBMCP_SKIP_LABEXTENSION=1 to build a wheel without it)")
