"""The JupyterLab panel's "Jobs" section: the kernel tells an open panel the jobs of ``--async``
tools (status, progress, age, executor; never arguments or results), and the panel in a real
JupyterLab (Chromium) shows them, a finished job with its progress.

Issue 16: "the JupyterLab panel shows them".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from comm_kernel import CommKernel, call, open_panel
from lab_setup import LabServer, lab_serving
from test_panel_follows_the_notebook_in_a_browser import (  # noqa: F401 (page is the browser fixture)
    PANEL,
    call_tools,
    page,
    run_all_cells,
    shot,
)
from test_panel_follows_the_notebook_in_a_browser import open_panel as open_lab_panel

pytestmark = pytest.mark.slow

LOAD = "%load_ext nanohubmcp\n%config NanohubMCP.port = 0"
SIMULATE = '''%%mcp_tool --async
def simulate(ctx, steps: int) -> str:
    """Report each step."""
    for step in range(1, steps + 1):
        ctx.report_progress(step, steps, f"step {step}")
    return f"{steps} steps"
'''
KEYS = {"id", "tool", "status", "status_message", "progress", "progress_total", "progress_message", "created",
        "executor"}


def test_an_open_panel_is_told_the_jobs_and_their_progress(comm_kernel: CommKernel) -> None:
    comm_kernel.run(LOAD)
    comm_id, *_ = open_panel(comm_kernel)
    since = comm_kernel.mark()
    comm_kernel.run(SIMULATE)
    status = comm_kernel.wait_data(comm_id, "status", since, where=lambda d: d["running"])
    since = comm_kernel.mark()
    handle = call(status["mcp_url"], ("simulate", {"steps": 3}))[0]
    job_id = handle.structured_content["job_id"]

    def finished(data: dict[str, Any]) -> bool:
        return any(j["id"] == job_id and j["status"] == "completed" for j in data["jobs"])

    jobs = comm_kernel.wait_data(comm_id, "jobs", since, where=finished)["jobs"]
    job = next(j for j in jobs if j["id"] == job_id)
    assert set(job) == KEYS
    assert (job["tool"], job["executor"]) == ("simulate", "threads")
    assert (job["progress"], job["progress_total"], job["progress_message"]) == (3, 3, "step 3")


@pytest.fixture
def lab(wheel_jupyter_path: Path, tmp_path: Path) -> Any:
    # lab_serving checks that jupyter-lab is installed (skipped locally, failed under CI) like its siblings;
    # this fixture made its own LabServer and errored with FileNotFoundError instead.
    with lab_serving([LOAD, SIMULATE], wheel_jupyter_path, tmp_path) as server:
        yield server


def test_the_panel_shows_a_finished_job_with_its_progress(lab: LabServer, page: Any) -> None:  # noqa: F811
    page.goto(lab.page_url("panel.ipynb"))
    panel = open_lab_panel(page)
    page.wait_for_selector(f'{PANEL}[data-state="not-loaded"]')  # the kernel is up
    run_all_cells(page)
    page.wait_for_selector(f'{PANEL} .jp-nanohub-mcp-tool[data-name="simulate"]')
    url = panel.locator(".jp-nanohub-mcp-public a").get_attribute("href")
    assert url is not None
    job_id = call_tools(url, ("simulate", {"steps": 4}))[0].structured_content["job_id"]
    row = page.wait_for_selector(f'{PANEL} .jp-nanohub-mcp-job.jp-mod-completed[data-job-id="{job_id}"]')
    text = row.inner_text()
    assert "simulate" in text
    assert "completed" in text
    assert "threads" in text
    assert "4/4 step 4" in text
    assert row.query_selector("progress").get_attribute("value") == "4"
    shot(page, "lab-panel-jobs.png", panel)
