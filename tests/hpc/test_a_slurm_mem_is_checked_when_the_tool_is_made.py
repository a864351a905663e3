"""``executor_options={"mem": ...}`` is checked when the server or the tool is made, as ``time`` is (trial78 NIT:
``"lots"`` was accepted and every call then failed ``sbatch refused the job: sbatch: error: Invalid --mem
specification``). The forms accepted are those sbatch takes (checked against sbatch 23's ``--test-only``): a whole
number of megabytes, or one with K, M, G or T after it, a B after that or not, either case."""

from __future__ import annotations

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import ConfigurationError, RegistrationError
from nanohubmcp.server.executors.slurm_options import check_values


@pytest.mark.parametrize("mem", ["lots", "1.5G", "4GiB", "4X", -1, 1.5, True, "", None])
def test_a_mem_sbatch_would_refuse_is_refused_when_the_server_is_made(mem: object) -> None:
    with pytest.raises(ConfigurationError, match=r"^slurm option mem must be memory as sbatch --mem takes it: a "
                       r"whole number of megabytes, or one with K, M, G or T after it \(500M, 4G or 4GB\), not "):
        MCPServer("x", job_executor="slurm", job_store="memory", executor_options={"mem": mem})


def test_a_tools_mem_is_refused_when_the_tool_is_made() -> None:
    server = MCPServer("x", job_executor="slurm", job_store="memory")

    def relax() -> int:
        return 1

    with pytest.raises(RegistrationError, match=r"tool 'relax'.*slurm option mem must be memory .* not 'lots'"):
        server.async_tool(executor_options={"mem": "lots"})(relax)


@pytest.mark.parametrize(("mem", "sent"), [("4G", "4G"), ("500m", "500m"), ("4GB", "4GB"), (2000, "2000"),
                                           ("0", "0")])
def test_the_forms_sbatch_takes_are_kept(mem: object, sent: str) -> None:
    MCPServer("x", job_executor="slurm", job_store="memory", executor_options={"mem": mem})
    assert check_values({"mem": mem}) == {"mem": sent}  # what sbatch is given
