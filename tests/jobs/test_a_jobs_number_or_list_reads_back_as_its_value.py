"""A job whose tool returns a number, a boolean, a list or a dict reads back through ``get_job_result``
as that value — ``"result": 5``, not the text ``"5"`` — as the tool's direct call answers it: its
text block is the value's JSON (``tools/call``), a REST call of a list answers the list. A string stays
a string (``"5"`` returned as text reads ``"5"``); a non-finite number keeps its text (``"Infinity"``:
JSON has no such number); None reads ``null`` (over REST too), not ``[]`` as an empty list does. The
same over MCP (the official client) and REST polling, and after the server restarted on the same state
directory (the SQLite record keeps how to read the text).

A fresh-user trial found numbers read back as strings (trial 5, F17): a model comparing or plotting
job results got text.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer

RETURNED: dict[str, Any] = {
    "integer": 5, "real": 2.5, "yes": True, "series": [0, 1, 4], "table": {"a": [1, 2]}, "digits": "5",
    "overflow": math.inf, "words": ["a", "b"], "nothing": None, "empty": [],
}
READ_BACK: dict[str, Any] = {**RETURNED, "overflow": "Infinity"}


def build(state_dir: Path) -> MCPServer:
    server = MCPServer("values", state_dir=state_dir)
    for name, value in RETURNED.items():
        server.tool(name=f"direct_{name}", description=f"{name}, at once")(returning(value))
        server.async_tool(name=name, description=f"{name}, as a job")(returning(value))
    return server


def returning(value: Any) -> Any:
    def returns() -> Any:
        return value

    return returns


def rest(url: str, tool: str, arguments: dict[str, Any]) -> tuple[int, Any]:
    response = httpx2.post(f"{url}tools/{tool}", json=arguments, timeout=30)
    return response.status_code, response.json()


def polled(url: str, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while (answer := rest(url, "get_job_result", {"job_id": job_id}))[1]["status"] == "running":
        assert time.monotonic() < deadline, f"job {job_id} did not end"
        time.sleep(0.02)
    assert answer[0] == 200, answer
    return answer[1]


@pytest.mark.anyio
async def test_get_job_result_answers_the_value_the_direct_call_answers(tmp_path: Path) -> None:
    with serve(build(tmp_path)) as url:
        async with mcp_client(url + "mcp") as client:
            for name, expected in READ_BACK.items():
                direct = await client.call_tool(f"direct_{name}", {})
                if expected is None:  # tools/call answers None with no content block (MCP's empty result)
                    assert direct.content == [], name
                else:
                    [block] = direct.content
                handle = (await client.call_tool(name, {})).structured_content
                with anyio.fail_after(30):
                    while (job := await client.call_tool("get_job_result", {"job_id": handle["job_id"]})
                           ).structured_content["status"] == "running":
                        await anyio.sleep(0.02)
                status = job.structured_content
                assert status == {"status": "done", "job_id": handle["job_id"], "result": expected}, name
                assert json.loads(job.content[0].text) == status
                # What the direct call answered: the value's JSON text, or the string itself.
                if name in ("digits", "overflow"):
                    assert status["result"] == block.text, name
                elif expected is None:
                    assert status["result"] is None  # null, not the empty block list (trial11 F7)
                else:
                    assert status["result"] == json.loads(block.text), name


def test_rest_polling_answers_the_value_and_a_restarted_server_too(tmp_path: Path) -> None:
    with serve(build(tmp_path)) as url:
        ids = {name: rest(url, name, {})[1]["job_id"] for name in READ_BACK}
        first = {name: polled(url, job_id)["result"] for name, job_id in ids.items()}
        direct_list = rest(url, "direct_series", {})
        direct_none, direct_empty = rest(url, "direct_nothing", {}), rest(url, "direct_empty", {})
    assert first == READ_BACK
    assert direct_list == (200, {"result": first["series"]})  # a REST call of a list answers the list
    # None is null, told apart from an empty list (trial11 F7: both answered []).
    assert (direct_none, direct_empty) == ((200, {"result": None}), (200, {"result": []}))
    assert (first["nothing"], first["empty"]) == (None, [])
    with serve(build(tmp_path)) as url:  # a new server, the same state directory: read from the file
        again = {name: polled(url, job_id)["result"] for name, job_id in ids.items()}
    assert again == READ_BACK
