"""trial34 X4: a notebook's ``%mcp rappture sub/fermi/tool.xml`` names the tool relative to the notebook's
folder, and the export writes that path as it is (``server.add_rappture_tool("sub/fermi/tool.xml", ...)``).
Started from another directory — ``nanohubmcp run /path/start_mcp.py``, or ``start_mcp --app
/path/start_mcp.py`` on a hub, which need not start in the notebook's folder — the script stopped at import
(``Rappture tool 'sub/fermi/tool.xml': no such file``). It runs its lines in the notebook's folder now."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from export_roundtrip import SCRIPT_TOKEN, export, run_start_mcp
from kernels import run_async
from support import mcp_client, run_command, stdio_call

pytestmark = pytest.mark.slow
pytest.importorskip("pint")

FERMI = Path(__file__).parents[1] / "rappture" / "tools" / "fermi"
ADD = "%%mcp_tool\ndef add(a: int, b: int) -> int:\n    '''Add two integers.'''\n    return a + b"


async def tool_names(url: str) -> list[str]:
    async with mcp_client(url, token=SCRIPT_TOKEN) as session:
        return sorted(tool.name for tool in (await session.list_tools()).tools)


def test_the_exported_line_finds_the_tool_from_another_directory(
    write_notebook: Callable[..., Path], tmp_path: Path,
) -> None:
    shutil.copytree(FERMI, tmp_path / "sub" / "fermi")
    notebook = write_notebook("%load_ext nanohubmcp", ADD, "%mcp rappture sub/fermi/tool.xml --name fermi_nb --async",
                              name="analysis.ipynb")
    done = export(notebook)
    assert done.returncode == 0, done.stderr
    script = tmp_path / "start_mcp.py"
    assert 'server.add_rappture_tool("sub/fermi/tool.xml", name="fermi_nb", background=True)' in script.read_text()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    result, stderr = run_async(stdio_call(run_command(script)[1:], "add", {"a": 2, "b": 3}, cwd=elsewhere))
    assert "no such file" not in stderr  # was: Rappture tool 'sub/fermi/tool.xml': no such file
    assert result.content[0].text == "5"
    with run_start_mcp(script, cwd=elsewhere) as url:
        assert run_async(tool_names(url)) == ["add", "cancel_job", "fermi_nb", "get_job_result"]
