"""The import-linter contracts in ``pyproject.toml`` hold: each layer imports only from the layers
below it (protocol -> schema -> server -> transports -> nanohub -> facade -> jupyter -> cli), no
package's modules import each other in a cycle, the core (protocol, schema, server) imports
no HTTP server, kernel or notebook library, and a source of tools (``sources/``) reaches no transport or
Tornado by any chain of imports, which the layers allow it (review r21 L5).

The same ``lint-imports`` a developer runs from the repository root, so a broken contract fails
CI with import-linter's own report (which import, on which line).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_import_contracts_are_kept() -> None:
    lint_imports = Path(sys.executable).parent / "lint-imports"
    done = subprocess.run(
        [str(lint_imports), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout, done.stdout
