"""The panel in a real JupyterLab, driven by headless Chromium (Debian's) through Playwright.

JupyterLab runs on 127.0.0.1 with a token and finds the panel in the pip-installed wheel. The
test opens a notebook, runs its ``%%mcp_tool`` cells, sees the panel show the server and the
tools, calls the tools with the official ``mcp`` client and sees the calls in the log; then
checks that a page reload and a kernel restart re-attach the panel. Screenshots go to
``test-artifacts/`` (their paths are printed).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lab_setup import ARTIFACTS, CHROMIUM, LabServer, lab_serving, missing, notebook
from support import mcp_client

pytestmark = pytest.mark.slow

CELLS = [
    "%load_ext nanohubmcp\n%config NanohubMCP.port = 0",
    '%%mcp_tool\ndef add(a: float, b: float) -> float:\n    """Add two numbers."""\n    return a + b',
    '%%mcp_tool\ndef divide(a: float, b: float) -> float:\n    """Divide a by b."""\n    return a / b',
]
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
]
WAIT_MS = 60_000
PANEL = "#nanohub-mcp-panel"


@pytest.fixture(scope="module")
def lab(wheel_jupyter_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    """One JupyterLab for this module's tests (its start took 10 s in CI); each test opens a notebook of its
    own (a kernel of its own) in a workspace of its own."""
    with lab_serving(CELLS, wheel_jupyter_path, tmp_path_factory.mktemp("lab")) as server:
        yield server


def own_notebook(lab: LabServer, name: str) -> str:
    """The page of ``name``.ipynb (this module's cells) in the workspace ``name``."""
    (lab.root / f"{name}.ipynb").write_text(json.dumps(notebook(CELLS)))
    return lab.page_url(f"{name}.ipynb", workspace=name)


@pytest.fixture
def page(lab: LabServer) -> Iterator[Any]:
    """A Chromium page; its console and the server's log are printed (shown when the test fails)."""
    if not CHROMIUM.exists():
        missing(f"{CHROMIUM} is missing (scripts/install-test-system-deps installs Debian's chromium)")
    from playwright.sync_api import sync_playwright

    console: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": 1360, "height": 860})
            context.set_default_timeout(WAIT_MS)
            page = context.new_page()
            page.on("console", lambda message: console.append(f"{message.type}: {message.text[:300]}"))
            yield page
        finally:
            browser.close()
            print("---- browser console (last 60) ----", *console[-60:], sep="\n")
            print("---- jupyter lab log (tail) ----", lab.log(), sep="\n")


def call_tools(url: str, *calls: tuple[str, dict[str, Any]]) -> list[Any]:
    """Call tools with the official client, on a thread of its own (Playwright owns this one)."""

    async def go() -> list[Any]:
        async with mcp_client(url) as client:
            return [await client.call_tool(name, args) for name, args in calls]

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, asyncio.wait_for(go(), 60)).result(90)


def open_panel(page: Any) -> Any:
    """Show the panel in the right side bar once JupyterLab has restored its layout."""
    page.wait_for_function("() => window.jupyterapp !== undefined")
    page.evaluate(
        "async () => { await window.jupyterapp.restored;"
        f" window.jupyterapp.shell.activateById('{PANEL[1:]}'); }}"
    )
    panel = page.locator(PANEL)
    panel.wait_for(state="visible")
    return panel


def run_all_cells(page: Any) -> None:
    # Not awaited (it resolves only when every cell ran); a "Select Kernel" dialog is accepted.
    page.evaluate("() => { void window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
    dialog = page.locator(".jp-Dialog button.jp-mod-accept")
    try:
        dialog.wait_for(state="visible", timeout=1500)
        dialog.click()
    except Exception:  # no dialog: the usual case
        pass


def shot(page: Any, name: str, element: Any = None) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    (element or page).screenshot(path=str(path))
    print(f"screenshot: {path}")
    return path


def test_the_panel_shows_the_server_its_tools_and_live_calls(lab: LabServer, page: Any) -> None:
    page.goto(own_notebook(lab, "panel"))
    panel = open_panel(page)
    # The panel's own comm round trip says the kernel is up (and nanohubmcp not loaded yet).
    page.wait_for_selector(f'{PANEL}[data-state="not-loaded"]')
    assert "%load_ext nanohubmcp" in panel.inner_text()

    run_all_cells(page)
    page.wait_for_selector(f'{PANEL}[data-state="connected"] .jp-nanohub-mcp-pill.jp-mod-ok')
    page.wait_for_selector(f'{PANEL} .jp-nanohub-mcp-tool[data-name="divide"]')
    assert panel.locator(".jp-nanohub-mcp-pill").inner_text() == "Serving"
    assert panel.locator(".jp-nanohub-mcp-sub").inner_text() == "panel.ipynb"
    tools = panel.locator(".jp-nanohub-mcp-tool code").all_inner_texts()
    assert tools == ["add", "divide"]
    assert "Add two numbers." in panel.locator('.jp-nanohub-mcp-tool[data-name="add"]').inner_text()
    url = panel.locator(".jp-nanohub-mcp-public a").get_attribute("href")
    assert url is not None
    assert url.startswith("http://127.0.0.1:")
    assert url.endswith("/mcp")

    results = call_tools(url, ("add", {"a": 2, "b": 3}), ("divide", {"a": 1, "b": 0}))
    assert float(results[0].content[0].text) == 5
    assert results[1].is_error is True
    page.wait_for_selector(f"{PANEL} .jp-nanohub-mcp-call.jp-mod-error")
    page.wait_for_selector(f"{PANEL} .jp-nanohub-mcp-call.jp-mod-ok")
    rows = panel.locator(".jp-nanohub-mcp-call").all_inner_texts()
    assert len(rows) == 2
    assert "tools/call" in rows[0]
    assert "divide" in rows[0]
    assert "division by zero" in rows[0]
    assert "add" in rows[1]
    assert "ms" in rows[1]
    shot(page, "lab-panel-page.png")
    shot(page, "lab-panel.png", panel)

    # A page reload: the panel opens its comm again and the log kept the calls.
    page.reload()
    panel = open_panel(page)
    page.wait_for_selector(f'{PANEL}[data-state="connected"] .jp-nanohub-mcp-call.jp-mod-error')
    assert panel.locator(".jp-nanohub-mcp-tool code").all_inner_texts() == ["add", "divide"]

    # A kernel restart: "not loaded" until the cells run again, then live again.
    page.evaluate(
        "() => { const c = window.jupyterapp.shell.currentWidget.sessionContext;"
        " c.statusChanged.connect((_, s) => console.log(`kernel status ${s}`));"
        " c.connectionStatusChanged.connect((_, s) => console.log(`connection ${s}`)); }"
    )
    page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.restart()"
    )
    page.wait_for_selector(f'{PANEL}[data-state="not-loaded"]')
    run_all_cells(page)
    page.wait_for_selector(f'{PANEL} .jp-nanohub-mcp-tool[data-name="divide"]')
    url = panel.locator(".jp-nanohub-mcp-public a").get_attribute("href")
    assert url is not None
    call_tools(url, ("add", {"a": 1, "b": 1}))
    page.wait_for_selector(f"{PANEL} .jp-nanohub-mcp-call.jp-mod-ok")
    assert len(panel.locator(".jp-nanohub-mcp-call").all_inner_texts()) == 1


def test_a_click_on_a_call_shows_its_provenance_record(lab: LabServer, page: Any) -> None:
    page.goto(own_notebook(lab, "provenance"))
    panel = open_panel(page)
    page.wait_for_selector(f'{PANEL}[data-state="not-loaded"]')
    run_all_cells(page)
    page.wait_for_selector(f'{PANEL} .jp-nanohub-mcp-tool[data-name="divide"]')
    url = panel.locator(".jp-nanohub-mcp-public a").get_attribute("href")
    assert url is not None
    [result] = call_tools(url, ("add", {"a": 2, "b": 3}))
    record_id = result.meta["io.nanohub/provenance"].rsplit("/", 1)[1]

    entry = panel.locator(".jp-nanohub-mcp-call.jp-mod-recorded")
    entry.wait_for(state="visible")
    assert panel.locator(".jp-nanohub-mcp-record").count() == 0
    entry.click()
    record = panel.locator(f'.jp-nanohub-mcp-record[data-record="{record_id}"]')
    record.locator('dd[data-field="code hash"]').wait_for(state="visible")
    assert record.locator('dd[data-field="tool"]').inner_text() == "add"
    assert record.locator('dd[data-field="code hash"]').inner_text().startswith("sha256:")
    assert '"a":2' in record.locator('dd[data-field="arguments"]').inner_text()
    assert record.locator('dd[data-field="record"]').inner_text() == record_id
    shot(page, "lab-panel-provenance.png", panel)
    entry.locator(".jp-nanohub-mcp-callline").click()  # a second click folds it away
    record.wait_for(state="detached")
