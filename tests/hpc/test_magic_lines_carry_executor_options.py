"""``%%mcp_tool`` lines carry a job tool's executor options (the one parser the live magics and the
exporter share), and ``c.NanohubMCP.executor_options`` reaches the notebook's server.

Issue 25: per-tool resources from ``%%mcp_tool --executor slurm --slurm-time 2:00:00 ...`` and
traitlets.
"""

from __future__ import annotations

import pytest

from nanohubmcp.errors import RegistrationError
from nanohubmcp.jupyter.cellspec import parse_tool_line


def test_slurm_and_submit_flags_become_executor_options() -> None:
    spec = parse_tool_line(
        "--async --executor slurm --slurm-time 2:00:00 --slurm-partition gpu --slurm-cpus-per-task 4 "
        '--slurm-mem 8G --slurm-gpus 1 --slurm-account proj --executor-option sbatch=\'{"constraint": "a100"}\' '
        "--executor-option qos=long"
    )
    assert spec.registration_options() == {
        "executor": "slurm",
        "executor_options": {
            "time": "2:00:00",
            "partition": "gpu",
            "cpus_per_task": 4,
            "mem": "8G",
            "gpus": 1,
            "account": "proj",
            "sbatch": {"constraint": "a100"},
            "qos": "long",
        },
    }
    submit = parse_tool_line("--async --submit-venue workspace --submit-walltime 30 --submit-cores 8 --submit-local")
    assert submit.registration_options() == {
        "executor_options": {"venue": "workspace", "walltime": "30", "cores": 8, "local": True}
    }


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("--slurm-time 5", "executor options are for job tools; add --async"),
        ("--async --executor dask --slurm-time 5", "--slurm-time is for --executor slurm, not dask"),
        ("--async --executor slurm --submit-venue workspace", "--submit-venue is for --executor submit, not slurm"),
        ("--async --slurm-gpus many", "gpus must be a whole number of at most 4300 digits, not 'many'"),
        ("--async --executor-option novalue", "--executor-option needs KEY=VALUE, not 'novalue'"),
    ],
)
def test_mistakes_are_one_line_errors(line: str, message: str) -> None:
    with pytest.raises(RegistrationError) as caught:
        parse_tool_line(line)
    assert str(caught.value) == f"%%mcp_tool: {message}"


def test_the_configurable_hands_executor_options_to_the_server() -> None:
    from nanohubmcp.jupyter.config import NanohubMCP
    from nanohubmcp.jupyter.session import KernelSession
    from nanohubmcp.jupyter.trait_groups import REBUILD_TRAITS

    config = NanohubMCP(job_executor="slurm", executor_options={"slurm": {"partition": "debug", "time": 7}})
    assert "executor_options" in REBUILD_TRAITS  # a change rebuilds the server with the new options
    session = KernelSession(config)
    try:
        runner = session.server.core.job_service.runners.default
    finally:
        session.close()
    assert runner.name == "slurm"
    assert getattr(runner, "options", None) == {"partition": "debug", "time": 7}


@pytest.mark.parametrize("written", ["4", "4.0", "4e0"])
def test_a_count_flag_takes_a_whole_number_written_any_way(written: str) -> None:
    """``--slurm-gpus 4.0`` was refused ("needs a whole number, not '4.0'") while ``nanohubmcp run --workers 4.0``
    and ``executor_options={"gpus": 4.0}`` take it: every count reads a whole number by one rule."""
    spec = parse_tool_line(f"--async --executor slurm --slurm-gpus {written} --slurm-cpus-per-task {written}")
    assert spec.registration_options()["executor_options"] == {"gpus": 4, "cpus_per_task": 4}
    submit = parse_tool_line(f"--async --submit-cores {written}")
    assert submit.registration_options()["executor_options"] == {"cores": 4}
