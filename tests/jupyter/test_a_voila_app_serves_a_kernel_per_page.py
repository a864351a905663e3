"""A Voilà app runs the notebook in a new kernel, with a new MCP server, at every page load (docs/getting-started/
notebook.md, "A Voilà app"; trial59 F2/F3).

With ``%config NanohubMCP.port = 0`` two page loads are two servers on two ports, each page drawing the bar of
its own ``%mcp call``; a ``%%capture`` first line hides the ``%%mcp_tool`` cell's status. With a fixed port the
first kernel keeps the port (closing a page does not end its kernel in voila 0.5.13), so the second page load
stops at the ``%%mcp_tool`` cell and shows none of the later cells. That cell's error is on the page (Voilà drops a
cell's errors and stderr: the page was blank before), saying to set the port to 0, under ``%%capture`` too.
"""

from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest
from voila_app import WIDGET_VIEW, cells_of, voila_notebook, voila_serving

pytestmark = pytest.mark.slow
pytest.importorskip("ipywidgets")

TOOL = ('%%mcp_tool\nfrom nanohubmcp import Context\n\n\ndef sweep(n: int, ctx: Context) -> int:\n'
        '    """Sweep n points."""\n    for i in range(n):\n        ctx.report_progress(i + 1, n, f"point {i + 1}")\n'
        '    return n')
CALL = 'r = %mcp call sweep {"n": 5}\nprint("result:", r.text)'
STATUS = "nanohubmcp-status"
"""The class of the status the ``%%mcp_tool`` cell that starts the server shows."""


def cells(port: int, capture: bool = False) -> list[str]:
    return [f"%load_ext nanohubmcp\n%config NanohubMCP.port = {port}", ("%%capture\n" if capture else "") + TOOL,
            CALL, "%mcp url"]


def endpoint(cell: str) -> str:
    found = re.search(r"http://127\.0\.0\.1:\d+/mcp", cell)
    assert found is not None, cell
    return found[0]


@pytest.mark.timeout(150)
def test_each_page_load_has_its_own_server_and_capture_hides_the_status(tmp_path: Path) -> None:
    notebook = voila_notebook(tmp_path / "app.ipynb", cells(0, capture=True))
    with voila_serving(notebook, tmp_path / "home") as app:
        pages = [cells_of(app.page()) for _ in range(2)]
    for page in pages:
        assert STATUS not in page[2], page[2]  # %%capture: nothing shown
        assert "sweep" not in page[2], page[2]
        assert "result: 5" in page[3], page[3]
        assert WIDGET_VIEW in page[3], page[3]  # the call's bar is still drawn
    assert endpoint(pages[0][4]) != endpoint(pages[1][4]), "two page loads, one server"


@pytest.mark.timeout(150)
@pytest.mark.parametrize("capture", [False, True], ids=["shown", "captured"])
def test_a_fixed_port_serves_the_first_page_load_only_and_says_why_on_the_next(tmp_path: Path, capture: bool) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    notebook = voila_notebook(tmp_path / "app.ipynb", cells(port, capture=capture))
    with voila_serving(notebook, tmp_path / "home") as app:
        first = cells_of(app.page())
        second = cells_of(app.page())
        log = app.output()
    assert (STATUS in first[2]) is not capture, first
    assert endpoint(first[4]) == f"http://127.0.0.1:{port}/mcp", first
    assert STATUS not in second[2], second  # the tool cell's error on the page, then nothing from the later cells
    assert f"port {port} on 127.0.0.1 is already in use" in second[2], second[2]
    assert "In a Voil\u00e0 app every page load runs its own kernel and server" in second[2], second[2]
    assert "set %config NanohubMCP.port = 0 (any free port)" in second[2], second[2]
    # %%capture's own cell does not fail (IPython reports the error of the cell it runs), so the next one does:
    # %mcp call finds no server (its error dropped by Voilà, as the page's stops there).
    assert (3 in second) is capture, second
    assert "result:" not in second.get(3, ""), second
    assert 4 not in second, second
    assert f"port {port} on 127.0.0.1 is already in use" in log or capture, log[-3000:]
