"""trial30 T9: ``%%mcp_tool`` options the notebook's kernel refuses at registration (a name clients cannot
call, a ``--view`` that is not ``ui://``, an ``--executor-option`` the executor does not take) were exported
("Wrote o.py (1 tool ...)") into a script that stopped at import with a RegistrationError traceback, under
``python``, ``nanohubmcp run`` and ``start_mcp --app``. The export now refuses them as it refuses a tool named
``get_job_result``: one line naming the cell and what is wrong, exit status 1, no file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from export_roundtrip import export

BODY = '\ndef f(x: int) -> int:\n    """F."""\n    return x'


@pytest.mark.parametrize(("options", "reason"), [
    ('--name "bad name!"', "tool 'bad name!': names are 1-128 ASCII letters, digits, '_', '-' and '.' (SEP-986); "
                           "choose another, e.g. name='bad_name'"),
    ("--view notui://x", "tool 'f': a view is a 'ui://...' resource URI (MCP Apps), not 'notui://x'"),
    ("--async --executor threads --executor-option poll=1",
     "tool 'f': the 'threads' job executor takes no executor_options (got poll)"),
    ("--async --executor slurm --executor-option bogus=1",
     "tool 'f': unknown slurm executor option(s) bogus; the options are partition, time, cpus_per_task, mem, gpus, "
     "account, qos, sbatch, setup, job_dir, python, poll_interval"),
    # trial32 V4: a cached job tool (the kernel refuses it) was exported into a script that stopped at import.
    ("--cache --async", "tool 'f': cache= is for tools that answer in the call, not @async_tool jobs"),
    ("--cache-shared --async", "tool 'f': cache= is for tools that answer in the call, not @async_tool jobs"),
])
def test_an_option_the_notebook_refuses_is_refused_in_one_line_and_no_file_is_written(
    write_notebook: Callable[..., Path], tmp_path: Path, options: str, reason: str
) -> None:
    notebook = write_notebook("%load_ext nanohubmcp", f"%%mcp_tool {options}{BODY}")
    done = export(notebook)
    assert done.returncode == 1
    first = f"%%mcp_tool {options}"
    first = first if len(first) <= 60 else first[:57] + "..."
    assert done.stderr.strip() == f"nanohubmcp export: error: {notebook}, cell 2 ({first}): {reason}"
    assert not (tmp_path / "start_mcp.py").exists()


def test_options_the_executor_takes_are_exported(write_notebook: Callable[..., Path], tmp_path: Path) -> None:
    notebook = write_notebook(
        "%load_ext nanohubmcp\n%config NanohubMCP.job_executor = 'slurm'",
        f"%%mcp_tool --async --executor-option partition=debug --view ui://f/view{BODY}")
    done = export(notebook)
    assert done.returncode == 0, done.stderr
    assert 'executor_options={"partition": "debug"}' in (tmp_path / "start_mcp.py").read_text()
