"""The ``submit`` executor's own ``submit`` option (the command's path) shares its key with the executor's
name, so it is given nested, ``executor_options={"submit": {"submit": PATH}}``; the flat form the other
options take is refused in one line showing that nested form (and the how-to page shows it).

Found by a user trial (trial39 R4): the refusal said only that ``executor_options['submit']`` must be a dict.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import ConfigurationError
from nanohubmcp.server.executors.submit_run import SubmitRun, command_line

HERE = Path(__file__).parent
HUB_SUBMIT = "/opt/hub/bin/submit"


def test_the_flat_form_is_refused_showing_the_nested_one() -> None:
    with pytest.raises(ConfigurationError) as caught:
        MCPServer("x", job_executor="submit", executor_options={"venue": "workspace", "submit": HUB_SUBMIT})
    text = str(caught.value)
    assert f"{{'submit': {{'submit': '{HUB_SUBMIT}'}}}}" in text
    assert "\n" not in text


def test_the_nested_form_names_the_command(tmp_path: Path) -> None:
    server = MCPServer("x", job_executor="submit", job_store="memory",
                       executor_options={"venue": "workspace", "submit": {"submit": HUB_SUBMIT}})
    runner = server.core.job_service.runners.runner_for(None)
    assert command_line(SubmitRun(["sim"]), runner.options, tmp_path)[0] == HUB_SUBMIT
    page = (HERE.parents[1] / "docs" / "how-to" / "hpc-jobs.md").read_text()
    assert '"submit": {"submit": ' in page


def test_a_tools_own_options_take_it_flat(tmp_path: Path) -> None:
    server = MCPServer("x", job_executor="submit", job_store="memory")
    runner = server.core.job_service.runners.runner_for("submit", {"submit": HUB_SUBMIT})
    assert command_line(SubmitRun(["sim"]), runner.options, tmp_path)[0] == HUB_SUBMIT
