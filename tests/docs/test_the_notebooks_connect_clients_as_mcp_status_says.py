"""The shipped notebooks tell a stdio-only client to connect the way ``%mcp status`` does.

Found by a fresh-user trial (trial 10, F10): every notebook's "Connect a client" cell said
``npx -y mcp-remote <URL>``, a bridge that passes no token — a notebook server requires one (401)
— and that needs Node. ``%mcp status`` prints a ``nanohubmcp bridge`` entry with the token in
``env`` as ``MCP_TOKEN``; the notebooks say the same.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nanohubmcp.jupyter.display import client_config

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


def markdown(notebook: Path) -> str:
    cells = json.loads(notebook.read_text())["cells"]
    return "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown")


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[path.stem for path in NOTEBOOKS])
def test_a_notebook_names_the_bridge_and_token_status_prints(notebook: Path) -> None:
    text = markdown(notebook)
    assert "mcp-remote" not in text
    if "stdio" not in text:
        return  # no word about stdio clients
    entry = client_config("n", "http://127.0.0.1:1/mcp", token="t")["mcpServers"]["n"]
    assert entry["args"][:3] == ["-m", "nanohubmcp", "bridge"]  # PYTHON -m nanohubmcp bridge
    command = " ".join(entry["args"][1:3])
    assert f"`{command} <that URL>`" in text
    assert all(f"`{name}`" in text for name in entry["env"])  # MCP_TOKEN
    assert "`%mcp status`" in text


def test_the_shipped_notebooks_are_found() -> None:
    assert len(NOTEBOOKS) >= 4
