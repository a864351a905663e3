"""An ``--async`` Rappture tool refuses a value given with units that is out of range (``"2000K"``
for a temperature of at most 1000K, ``"-300C"``) at once, as it refuses the plain number 2000: over
REST 400, over MCP an invalid-arguments answer, and no job is made. It answered 202 with a job that
failed later with the same message, taking a job slot (trial11 F5). A value in range with other
units (``"25C"``) still starts a job, converted."""

from __future__ import annotations

from pathlib import Path

import httpx2 as httpx
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer

pytest.importorskip("pint")

FERMI = Path(__file__).parent / "tools" / "fermi"


def job_server() -> MCPServer:
    server = MCPServer("rappture-async", job_store="memory")
    assert server.add_rappture_tool(FERMI, async_=True).background
    return server


@pytest.mark.parametrize(("value", "problem"), [
    ("2000K", "temperature (Temperature): '2000K' is 2000K, above the maximum 1000K"),
    ("-300C", "temperature (Temperature): '-300C' is -26.85K, below the minimum 1K"),
    ("20 furlongs", "temperature (Temperature): 'furlongs' is not a unit of the same kind as 'K'"),
    (2000, "temperature (Temperature): 2000 is above the maximum 1000K"),  # as the text form is (trial64 F1)
])
def test_rest_answers_400_and_makes_no_job(value: object, problem: str) -> None:
    server = job_server()
    with serve(server) as url:
        reply = httpx.post(f"{url}tools/fermi", json={"temperature": value}, timeout=30)
        assert reply.status_code == 400, reply.text
        assert problem in reply.json()["error"]
        assert server.core.job_service.jobs.listing() == []


@pytest.mark.anyio
async def test_mcp_answers_invalid_arguments_and_a_value_in_range_still_starts_a_job() -> None:
    server = job_server()
    with serve(server) as url:
        async with mcp_client(url + "mcp") as client:
            refused = await client.call_tool("fermi", {"temperature": "2000K"})
            assert refused.is_error
            assert "above the maximum 1000K" in refused.content[0].text  # type: ignore[union-attr]
            assert server.core.job_service.jobs.listing() == []
            started = await client.call_tool("fermi", {"temperature": "25C", "points": 11})
            assert not started.is_error
            assert started.structured_content["status"] == "running"
            assert len(server.core.job_service.jobs.listing()) == 1
