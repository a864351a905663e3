"""A Rappture tool marked long runs as a durable job: ``<limits><cputime>`` over what a proxy waits
(30 s) makes it one by itself, ``async_=True`` (``--async``) asks for it; the call answers at once
with a job id and ``get_job_result`` returns the outputs — on the server's threads, and on a process
pool (the registered function pickles as its tool.xml path and reads the file again there).
Issue 24: "A tool marked long runs as a durable job on any executor"."""

from __future__ import annotations

import re
import shutil
import sqlite3
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer

pytest.importorskip("pint")

FERMI = Path(__file__).parent / "tools" / "fermi"


def long_tool(tmp_path: Path, cputime: str = "600") -> Path:
    """The fermi tool with ``<limits><cputime>600</cputime></limits>`` (or another cputime)."""
    folder = tmp_path / "fermi_long"
    shutil.copytree(FERMI, folder)
    xml = folder / "tool.xml"
    limits = f"<limits><cputime>{cputime}</cputime></limits>"
    xml.write_text(xml.read_text().replace("</command>", f"</command>\n    {limits}"))
    return xml


async def run_job(url: str, name: str) -> dict[str, Any]:
    async with mcp_client(url + "mcp") as client:
        handle = (await client.call_tool(name, {"temperature": "77K", "points": 11})).structured_content
        assert handle["status"] == "running", handle
        answer = handle
        deadline = time.monotonic() + 60
        while answer["status"] == "running":
            assert time.monotonic() < deadline, answer
            await anyio.sleep(0.05)
            answer = (await client.call_tool("get_job_result", {"job_id": handle["job_id"]})).structured_content
    answer["job_id"] = handle["job_id"]
    return answer


def test_limits_over_the_proxy_timeout_make_a_job_tool_and_async_asks_for_one(tmp_path: Path) -> None:
    server = MCPServer("rappture-jobs")
    assert server.add_rappture_tool(long_tool(tmp_path)).background
    assert not server.add_rappture_tool(FERMI, name="quick").background
    assert server.add_rappture_tool(FERMI, name="asked", async_=True).background
    assert not server.add_rappture_tool(long_tool(tmp_path / "b"), name="kept_sync", background=False).background


@pytest.mark.anyio
@pytest.mark.parametrize("executor", ["threads", "processes"])
async def test_a_long_tool_answers_with_a_job_whose_result_holds_the_outputs(tmp_path: Path, executor: str) -> None:
    server = MCPServer("rappture-jobs", job_executor=executor, job_workers=1, state_dir=str(tmp_path / "state"))
    server.add_rappture_tool(long_tool(tmp_path))
    with serve(server) as url, anyio.fail_after(90):
        answer = await run_job(url, "fermi_long")
    assert answer["status"] == "done", answer
    assert answer["result"]["outputs"]["kT"]["value"] == pytest.approx(8.617333262e-5 * 77)
    assert len(answer["result"]["outputs"]["f12"]["x"]) == 11
    db = sqlite3.connect(tmp_path / "state" / "jobs.sqlite3")
    row = db.execute("SELECT status, executor FROM jobs WHERE id = ?", (answer["job_id"],)).fetchone()
    assert row == ("completed", executor)  # kept in the job store: it survives a restart


def test_cache_on_a_tool_its_limits_make_a_job_tool_names_the_limits_and_the_way_out(tmp_path: Path) -> None:
    """trial34 X10: the refusal spoke of ``@async_tool``, which the user never wrote."""
    from nanohubmcp.errors import RegistrationError

    server = MCPServer("cached", state_dir=str(tmp_path / "state"))
    with pytest.raises(RegistrationError, match=r"its <limits><cputime> \(600 s, longer than 30 s\) makes it a job "
                                                r"tool; give background=False to cache it"):
        server.add_rappture_tool(long_tool(tmp_path), name="long_cached", cache=True)
    assert not server.add_rappture_tool(long_tool(tmp_path / "again"), name="short_cached", cache=True,
                                        background=False).background


@pytest.mark.parametrize(("cputime", "said"), [("100000", "100000 s (capped at 43200 s)"),
                                                ("unlimited", "unlimited (43200 s)")])
def test_the_cache_refusal_quotes_the_cputime_as_the_tool_xml_writes_it(tmp_path: Path, cputime: str,
                                                                         said: str) -> None:
    """trial35 Y18: a tool.xml saying 100000 was quoted as "43200 s", a cap the user never wrote."""
    from nanohubmcp.errors import RegistrationError

    server = MCPServer("cached", state_dir=str(tmp_path / "state"))
    with pytest.raises(RegistrationError, match=rf"its <limits><cputime> \({re.escape(said)}, longer than 30 s\)"):
        server.add_rappture_tool(long_tool(tmp_path, cputime), name="capped", cache=True)


@pytest.mark.parametrize("asked", [{"background": True}, {"async_": True}])
def test_cache_with_background_true_names_the_rappture_tool_and_background(tmp_path: Path,
                                                                           asked: dict[str, bool]) -> None:
    """trial35 Y18: the refusal spoke of "@async_tool jobs" of "tool 'lim2'"; the user wrote background=True."""
    from nanohubmcp.errors import RegistrationError

    server = MCPServer("cached", state_dir=str(tmp_path / "state"))
    with pytest.raises(RegistrationError, match=r"^Rappture tool 'lim2': cache= is for tools that answer in the "
                                                r"call, not background=True jobs; leave out one of them$"):
        server.add_rappture_tool(FERMI, name="lim2", cache=True, **asked)
