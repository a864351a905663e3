"""``nanohubmcp bridge`` to a notebook's server through the Jupyter server extension, once that server is gone.

A fresh-user trial (trial23) ran the bridge after the notebook's server had stopped, the Jupyter server
still up: it showed "GET …/sse?token=<the real Jupyter token> answered HTTP 404 … without an endpoint
event" — the extension's 404 had said what to do, the bridge fell back to legacy SSE and dropped it, and
wrote Jupyter's token to stderr and into the client's error. After a kernel restart the extension's own
words were no help either. Here a real Jupyter Server with the extension runs a real kernel, and the real
bridge process is started as a desktop client starts it, after ``%mcp stop``, after a kernel restart,
after a kernel shutdown, and with a session open when the server stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from jupyter_behind_weber import JupyterServer, NotebookKernel
from nginx_weber import free_port
from proxy_support import request

pytestmark = pytest.mark.slow

MCP_TOKEN = "notebook-mcp-token-0123456789"
INITIALIZE = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
ADD_CELL = "%%mcp_tool\ndef add(a: int, b: int) -> int:\n    '''Add.'''\n    return a + b"


@dataclass
class Notebook:
    jupyter: JupyterServer
    kernel: NotebookKernel
    port: int

    @property
    def url(self) -> str:
        """The bridge's URL as the notebook's status gives it, Jupyter's real token in place."""
        return f"{self.jupyter.url}nanohubmcp/{self.port}/mcp?token={self.jupyter.token}"

    @property
    def kernel_url(self) -> str:
        return f"{self.jupyter.url}api/kernels/{self.kernel.kernel_id}"


@contextlib.asynccontextmanager
async def serving_notebook(jupyter: JupyterServer) -> AsyncIterator[Notebook]:
    """A notebook whose kernel serves ``add`` through the extension, reached once by the bridge (so the
    extension has forwarded to it); its kernel is shut down afterwards."""
    kernel = await NotebookKernel.open(jupyter, f"nb-{free_port()}.ipynb")
    try:
        notebook = Notebook(jupyter, kernel, free_port())
        await kernel.run_ok(f"%load_ext nanohubmcp\n%config NanohubMCP.port = {notebook.port}\n"
                            f"%config NanohubMCP.token = {MCP_TOKEN!r}")
        await kernel.run_ok(ADD_CELL)
        assert bridge_answer(notebook.url).reply["result"]["serverInfo"]
        yield notebook
    finally:
        kernel.ws.close()
        request("DELETE", f"{jupyter.url}api/kernels/{kernel.kernel_id}", headers=jupyter.auth)


def _run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 180))


@dataclass
class Answer:
    reply: dict[str, Any]
    stderr: str

    @property
    def message(self) -> str:
        return str(self.reply["error"]["message"])


def bridge_answer(url: str) -> Answer:
    """The bridge's answer to a client's ``initialize``, and what it wrote on stderr."""
    done = subprocess.run(
        [sys.executable, "-m", "nanohubmcp", "bridge", url], input=json.dumps(INITIALIZE) + "\n",
        capture_output=True, text=True, timeout=60, env={**os.environ, "MCP_TOKEN": MCP_TOKEN},
    )
    assert done.returncode == 0, done.stderr
    return Answer(json.loads(done.stdout.splitlines()[0]), done.stderr)


def assert_no_credential(answer: Answer, notebook: Notebook) -> None:
    shown = json.dumps(answer.reply) + answer.stderr
    assert notebook.jupyter.token not in shown
    assert MCP_TOKEN not in shown
    assert f"/nanohubmcp/{notebook.port}/mcp?token=***" in answer.message
    assert f"/nanohubmcp/{notebook.port}/mcp?token=***" in answer.stderr


def assert_said_on_stderr_too(answer: Answer) -> None:
    assert f"nanohubmcp bridge: {answer.message}" in answer.stderr
    assert "/sse" not in answer.message  # no legacy SSE fallback hiding the extension's word


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    work = tmp_path_factory.mktemp("gone-notebook")
    server = JupyterServer(work, free_port(), "/user/alice/", {}, extension=True)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_a_stopped_server_is_explained_with_what_starts_it_again(jupyter: JupyterServer) -> None:
    async def scenario() -> tuple[Notebook, Answer]:
        async with serving_notebook(jupyter) as notebook:
            await notebook.kernel.run_ok("%mcp stop")
            return notebook, bridge_answer(notebook.url)

    notebook, answer = _run(scenario())
    assert f"HTTP 404 Not Found from {jupyter.url}nanohubmcp/{notebook.port}/mcp?token=***: " in answer.message
    assert f"the notebook's MCP server on port {notebook.port} was stopped" in answer.message
    assert "%mcp start" in answer.message
    assert_said_on_stderr_too(answer)
    assert_no_credential(answer, notebook)


def test_a_restarted_kernel_is_explained_with_the_cells_to_run_again(jupyter: JupyterServer) -> None:
    async def scenario() -> tuple[Notebook, Answer, int, str]:
        async with serving_notebook(jupyter) as notebook:
            status, _, body = request("POST", notebook.kernel_url + "/restart", {}, headers=jupyter.auth)
            assert status == 200, body[:300]
            answer = bridge_answer(notebook.url)
            status, _, body = request("POST", notebook.url, INITIALIZE)  # any client, not only the bridge
            return notebook, answer, status, body

    notebook, answer, status, body = _run(scenario())
    assert f"the notebook kernel that served MCP on port {notebook.port} has died or restarted" in answer.message
    assert "run `%load_ext nanohubmcp` and the cells that start the server (its %%mcp_tool cells" in answer.message
    assert "the new token %mcp token" in answer.message
    assert_said_on_stderr_too(answer)
    assert_no_credential(answer, notebook)
    assert status == 404
    assert "has died or restarted" in json.loads(body)["message"]


def test_a_shut_down_kernel_is_explained(jupyter: JupyterServer) -> None:
    async def scenario() -> tuple[Notebook, Answer]:
        async with serving_notebook(jupyter) as notebook:
            assert request("DELETE", notebook.kernel_url, headers=jupyter.auth)[0] == 204
            return notebook, bridge_answer(notebook.url)

    notebook, answer = _run(scenario())
    assert f"the notebook kernel that served MCP on port {notebook.port} was shut down" in answer.message
    assert "open the notebook, run `%load_ext nanohubmcp`" in answer.message
    assert_said_on_stderr_too(answer)
    assert_no_credential(answer, notebook)


def test_a_port_never_served_says_how_to_start_a_server(jupyter: JupyterServer) -> None:
    port = free_port()
    answer = bridge_answer(f"{jupyter.url}nanohubmcp/{port}/mcp?token={jupyter.token}")
    assert f"no notebook kernel of this Jupyter server serves MCP on port {port}" in answer.message
    assert "after a kernel restart, run `%load_ext nanohubmcp` and those cells again" in answer.message
    assert jupyter.token not in answer.message + answer.stderr
    assert_said_on_stderr_too(answer)


async def _call_after_stop(jupyter: JupyterServer, errors: Path) -> tuple[Notebook, str]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.shared.exceptions import MCPError

    async with serving_notebook(jupyter) as notebook:
        params = StdioServerParameters(command=sys.executable, args=["-m", "nanohubmcp", "bridge", notebook.url],
                                       env={**os.environ, "MCP_TOKEN": MCP_TOKEN})
        with errors.open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                assert (await session.call_tool("add", {"a": 1, "b": 2})).content[0].text == "3"
                await notebook.kernel.run_ok("%mcp stop")
                with pytest.raises(MCPError) as refused:
                    await session.call_tool("add", {"a": 1, "b": 2})
                return notebook, str(refused.value)


def test_a_session_whose_server_stopped_gets_the_extensions_word(jupyter: JupyterServer, tmp_path: Path) -> None:
    notebook, message = _run(_call_after_stop(jupyter, tmp_path / "stderr"))
    assert f"the notebook's MCP server on port {notebook.port} was stopped" in message
    assert jupyter.token not in message
    stderr = (tmp_path / "stderr").read_text()
    assert "was stopped" in stderr
    assert jupyter.token not in stderr
    assert MCP_TOKEN not in stderr
