"""trial69 T69-8: a notebook adding middleware through ``@current().server.middleware`` (its server is
``current().server``) exported a script that stopped at start: ``AttributeError: 'NoneType' object has no
attribute 'server'`` (a script has no kernel session). The export now rewrites ``current().server`` to the
script's ``server``, however ``current`` was imported, so the script serves the same middleware; a
``current()`` used otherwise is refused in one line naming the cell, and no file is written."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import nbformat
import pytest
from export_roundtrip import SCRIPT_TOKEN, export, run_script
from kernels import run_async
from support import mcp_client

from nanohubmcp.errors import NanohubMCPError
from nanohubmcp.jupyter.translate import translate

SETUP = "%load_ext nanohubmcp\n%config NanohubMCP.name = 'nb'"
TOOL = '%%mcp_tool\ndef add(a: float, b: float) -> float:\n    """Add."""\n    return a + b'
MIDDLEWARE = ('from nanohubmcp import ProtocolError\nfrom nanohubmcp.jupyter.extension import current\n\n'
              "@current().server.middleware\nasync def refuse_big(request, call_next):\n"
              '    if request.tool_name == "add" and request.params["arguments"].get("a", 0) > 100:\n'
              '        raise ProtocolError("too big")\n    return await call_next(request)')


async def _calls(url: str) -> tuple[Any, str]:
    from mcp.shared.exceptions import MCPError

    async with mcp_client(url, token=SCRIPT_TOKEN) as session:
        small = await session.call_tool("add", {"a": 1, "b": 2})
        with pytest.raises(MCPError) as refused:
            await session.call_tool("add", {"a": 1000, "b": 1})
        return small.content[0].text, refused.value.error.message


def test_the_exported_script_refuses_what_the_notebooks_middleware_refuses(
    write_notebook: Callable[..., Path], tmp_path: Path
) -> None:
    done = export(write_notebook(SETUP, TOOL, MIDDLEWARE))
    assert done.returncode == 0, done.stderr
    assert "@server.middleware" in (tmp_path / "start_mcp.py").read_text()
    with run_script(tmp_path / "start_mcp.py") as url:
        assert run_async(_calls(url)) == ("3.0", "too big")


def script(*sources: str) -> str:
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    return translate(notebook, source="nb.ipynb", format_code=False).text


@pytest.mark.parametrize(("imports", "use"), [
    ("from nanohubmcp.jupyter.extension import current", "current().server"),
    ("from nanohubmcp.jupyter.extension import current as cur", "cur().server"),
    ("import nanohubmcp.jupyter.extension as ext", "ext.current().server"),
    ("from nanohubmcp.jupyter import extension", "extension.current().server"),
    ("import nanohubmcp.jupyter.extension", "nanohubmcp.jupyter.extension.current().server"),
])
def test_current_server_becomes_the_scripts_server_however_current_was_imported(imports: str, use: str) -> None:
    text = script(SETUP, TOOL, imports, f"x = 'é'; names = {use}.tool_names()\nasync def f():\n"
                  f"    return await {use}.call_async('add', {{'a': 1, 'b': 2}})")
    assert "x = 'é'; names = server.tool_names()" in text
    assert "    return await server.call_async('add'" in text
    assert "current()" not in text


def test_a_function_named_current_of_the_notebooks_own_is_left_alone() -> None:
    assert "current().server" in script(SETUP, TOOL, "def current():\n    return None\n\nx = current().server")


@pytest.mark.parametrize(("code", "why"), [
    ("current().stop()", "line 2 uses current() (the notebook's kernel session), which the exported script has "
     "not; use current().server (it becomes the script's server) or tag the cell mcp-skip"),
    ("def f(server):\n    return current().server", "line 2 binds the name 'server', and current().server in "
     "this cell becomes the script's server: rename it or tag the cell mcp-skip"),
])
def test_a_current_the_script_cannot_have_is_refused_naming_the_cell(code: str, why: str) -> None:
    with pytest.raises(NanohubMCPError) as caught:
        script(SETUP, TOOL, f"from nanohubmcp.jupyter.extension import current\n{code}")
    assert str(caught.value).startswith("nb.ipynb, cell 3 (")
    assert str(caught.value).endswith(why)
