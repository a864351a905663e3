"""The schema package exports exactly its documented names, and importing it does nothing else."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nanohubmcp.schema


def test_exported_names() -> None:
    assert nanohubmcp.schema.__all__ == [
        "ArgumentValidator",
        "CheckPending",
        "CheckedArgumentValidator",
        "GeneratedSchema",
        "OutputValidator",
        "Signature",
        "describe_function",
    ]
    for name in nanohubmcp.schema.__all__:
        assert getattr(nanohubmcp.schema, name).__module__.startswith("nanohubmcp.schema.")


def test_import_has_no_side_effects_and_stays_in_its_layer() -> None:
    code = (
        "import logging, sys, warnings\n"
        "import nanohubmcp\n"
        "filters, before = list(warnings.filters), set(sys.modules)\n"
        "import nanohubmcp.schema\n"
        "assert warnings.filters == filters\n"
        "assert not logging.getLogger().handlers\n"
        "new = set(sys.modules) - before\n"
        "assert not {m.split('.')[0] for m in new} & {'tornado', 'IPython', 'traitlets'}, new\n"
        "assert not {m for m in new if m.startswith(('nanohubmcp.server', 'nanohubmcp.transports'))}\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60, cwd=Path(__file__).parents[2])
