"""``notebooks/apps.ipynb`` in a real kernel: its ``%%mcp_view`` cell's plot, read with the official client,
renders the tool's result through the official ``@modelcontextprotocol/ext-apps`` host bridge.

The notebook runs under nbclient; with the kernel still up, the official client lists the tool
(``_meta.ui.resourceUri``), reads the view and calls the tool; Chromium then shows the view with
that result and the SVG holds one point per sample. Screenshot: ``test-artifacts/``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import nbformat
import pytest
from ext_apps_host import hosted_view, screenshot
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from kernel_launch import KERNEL_NAME, execute_notebook, kernel_environment, write_kernel_spec
from nbclient import NotebookClient
from support import mcp_client

pytestmark = pytest.mark.slow

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "apps.ipynb"
ARGS = {"frequency": 2.0, "damping": 0.5, "points": 60}


def wire(model: Any) -> dict[str, Any]:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def served_by_the_notebook(tmp_path: Path) -> dict[str, Any]:
    """Run every cell; the tool, its view's contents and a call result, from the official client."""
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    specs = KernelSpecManager(kernel_dirs=[str(write_kernel_spec(tmp_path / "kernels"))], ensure_native_kernel=False)
    manager = AsyncKernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=specs)
    client = NotebookClient(notebook, km=manager, timeout=60, startup_timeout=60)
    (tmp_path / "ipython").mkdir()
    try:
        with client.setup_kernel(env=kernel_environment(tmp_path / "ipython")):
            url = execute_notebook(client)

            async def go() -> dict[str, Any]:
                with anyio.fail_after(30):
                    async with mcp_client(url) as session:
                        (tool,) = (await session.list_tools()).tools
                        uri = wire(tool)["_meta"]["ui"]["resourceUri"]
                        (content,) = wire(await session.read_resource(uri))["contents"]
                        result = wire(await session.call_tool("damped_oscillation", ARGS))
                        return {"uri": uri, "content": content, "result": result}

            return anyio.run(go)
    finally:
        if client.kc is not None:
            client.kc.stop_channels()
        anyio.run(lambda: manager.shutdown_kernel(now=False))


def test_the_notebook_view_draws_the_tool_result(tmp_path: Path) -> None:
    got = served_by_the_notebook(tmp_path)
    assert got["uri"] == "ui://plots/chart"
    assert got["content"]["mimeType"] == "text/html;profile=mcp-app"
    assert got["content"]["_meta"] == {"ui": {"prefersBorder": True}}
    data = got["result"]["structuredContent"]
    with hosted_view(got["content"]["text"], ARGS, got["result"]) as (page, view):
        view.locator("#summary").filter(has_text="points").wait_for()
        assert view.locator("#summary").inner_text() == "60 points"
        assert view.locator("#title").inner_text() == data["title"]
        points = view.locator("#plot polyline").get_attribute("points").split()
        assert len(points) == len(data["x"]) == 60
        assert points[0] == "10.0,10.0"  # t = 0, y = 1: the maximum, top left
        screenshot(page, "mcp-apps-notebook-view-rendered-by-ext-apps-host.png")
