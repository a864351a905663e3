"""A Rappture tool served with one cached result for every caller (``add_rappture_tool(..., cache="shared")``,
``nanohubmcp hub-tools NAME --cache-shared``) starts without the warning about a ``Context``: the Context is the
one nanohubmcp's wrapper takes to run the program, not the user's. A function of the user's own that takes a
Context with ``cache="shared"`` is still warned about (it could read ``ctx.principal``).

Found by a fresh-user trial (trial74 F14): every start of ``hub-tools fermi --cache-shared`` printed
"RegistrationWarning: tool 'fermi' has cache='shared' and takes a Context: ...", a warning nobody could act on.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from nanohubmcp import Context, MCPServer
from nanohubmcp.errors import RegistrationWarning

ROOT = Path(__file__).resolve().parents[2]
FERMI = ROOT / "examples" / "rappture" / "fermi"
CONTEXT_WARNING = "takes a Context"
LISTING = "".join(json.dumps(message) + "\n" for message in [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
])


def test_a_shared_cache_rappture_tool_registers_without_a_context_warning(tmp_path: Path, hub_path: Path) -> None:
    server = MCPServer("shared-fermi", state_dir=str(tmp_path / "state"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        server.add_rappture_tool(FERMI / "tool.xml", cache="shared", plot=False)
    assert [str(w.message) for w in caught if CONTEXT_WARNING in str(w.message)] == []

    def mine(n: int, ctx: Context) -> int:
        """Its own Context: it could read ctx.principal."""
        return n

    with pytest.warns(RegistrationWarning, match="tool 'mine' has cache='shared' and takes a Context"):
        server.tool(cache="shared")(mine)


@pytest.mark.timeout(180)
def test_hub_tools_cache_shared_starts_without_a_context_warning(tmp_path: Path, hub_path: Path) -> None:
    folder = tmp_path / "apps" / "fermi" / "r1" / "rappture"
    folder.mkdir(parents=True)
    for name in ("tool.xml", "fermi.py"):
        shutil.copy(FERMI / name, folder / name)
    env = {k: v for k, v in os.environ.items()
           if k not in ("SESSIONDIR", "SESSION_DIR", "NANOHUBMCP_STATE_DIR", "NANOHUBMCP_STATE_URL")}
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    # Over stdio, a client's initialize and tools/list, then the end of its input: the server answers, and ends.
    done = subprocess.run([sys.executable, "-m", "nanohubmcp", "hub-tools", "fermi", "--root", str(tmp_path / "apps"),
                           "--cache-shared", "--transport", "stdio"], cwd=ROOT, env=env, input=LISTING,
                          capture_output=True, text=True, timeout=150)
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [tool["name"] for tool in answers[-1]["result"]["tools"]] == ["fermi"], done.stdout
    assert CONTEXT_WARNING not in done.stderr, done.stderr
