"""The notebook path with this package's Jupyter server extension: weber (nginx) -> Jupyter Server
-> ``<base_url>nanohubmcp/<port>/`` -> kernel, and every reply streams.

Jupyter Server runs under the weber path with the extension enabled; the kernel (started through
the session API, with the fake nanoHUB session in its environment) asks whether its Jupyter
server runs the extension, and then advertises ``<weber URL>nanohubmcp/<port>/`` instead of
jupyter-server-proxy's buffered ``proxy/<port>/``. The detected URL names the hub's host
(``https://proxy.hub.test``), which does not resolve here: clients use the same path on nginx.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

import pytest
from jupyter_behind_weber import CellOutput, JupyterServer, NotebookKernel, jupyter_behind_nginx
from nginx_weber import Nginx, free_port
from proxy_support import (
    HUB_HOST,
    STEP_SECONDS,
    STEPS,
    WEBER_PATH,
    assert_progress_streamed,
    client_with_headers,
    first_sse_event,
    get_json,
    request,
    steady_progress_cell,
    timed_tool_call_events,
)

pytestmark = pytest.mark.slow

ASYNC_TIMEOUT = 60.0
NOTEBOOK = "streaming-demo.ipynb"
CELLS = steady_progress_cell("count_slowly")

ASK_CELL = '''%%mcp_tool
from nanohubmcp import Context

def ask_name(ctx: Context) -> str:
    """Ask the user's name through the client."""
    schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    reply = ctx.elicit("What is your name?", schema, timeout=10)
    return "hello " + reply["content"]["name"]
'''
ADD_CELL = '''%%mcp_tool
def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b
'''

RUN_CELL = """from nanohubmcp import MCPServer

second = MCPServer("second")

@second.tool()
def twice(x: int) -> int:
    return 2 * x

second.run(port=0)
second.url
"""


@dataclass
class StreamingNotebook:
    jupyter: JupyterServer
    nginx: Nginx
    mcp_port: int
    detected_url: str
    first_cell: CellOutput
    url_cell: CellOutput
    configured_cell: CellOutput
    run_cell: CellOutput

    @property
    def base(self) -> str:
        """The advertised base URL's path on nginx (``<nginx><weber path>nanohubmcp/<port>/``)."""
        return self.nginx.origin + urlsplit(self.detected_url).path.removesuffix("mcp")

    @property
    def auth(self) -> dict[str, str]:
        return self.jupyter.auth


def _run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, ASYNC_TIMEOUT))


@pytest.fixture(scope="module")
def notebook(nginx_executable: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[StreamingNotebook]:
    work = tmp_path_factory.mktemp("streaming-notebook")
    with jupyter_behind_nginx(nginx_executable, work, extension=True) as (jupyter, nginx):
        async def prepare() -> StreamingNotebook:
            kernel = await NotebookKernel.open(jupyter, NOTEBOOK)
            # Probed only once the kernel holds its own ports: the kernel launcher finds its ports by
            # the same bind-to-0-and-close probe, and Linux may hand it the port probed just before.
            mcp_port = free_port()
            try:
                await kernel.run_ok(f"%load_ext nanohubmcp\n%config NanohubMCP.port = {mcp_port}")
                first = await kernel.run_ok(CELLS)
                await kernel.run_ok(ASK_CELL)
                url_cell = await kernel.run_ok("%mcp url")
                # As on another hub: a configured jupyter-server-proxy URL (the server restarts on it).
                proxied = f"{nginx.origin}{WEBER_PATH}proxy/{mcp_port}/"
                await kernel.run_ok(f"%config NanohubMCP.public_url = {proxied!r}")
                configured = await kernel.run_ok("%mcp status")
                await kernel.run_ok("%config NanohubMCP.public_url = None")  # back to the detected route
                run_cell = await kernel.run_ok(RUN_CELL)
            finally:
                kernel.ws.close()  # the kernel keeps serving; its session is deleted with the server
            detected = str(url_cell.results[-1]["text/plain"]).strip("'\"")
            return StreamingNotebook(jupyter, nginx, mcp_port, detected, first, url_cell, configured, run_cell)

        yield _run(prepare())


def test_the_kernel_advertises_the_extension_route_without_a_caveat(notebook: StreamingNotebook) -> None:
    assert notebook.detected_url == f"https://proxy.{HUB_HOST}{WEBER_PATH}nanohubmcp/{notebook.mcp_port}/mcp"
    assert notebook.detected_url in notebook.first_cell.text
    assert "streaming limited" not in notebook.first_cell.text + notebook.url_cell.stdout
    assert get_json(notebook.nginx.origin + WEBER_PATH + "nanohubmcp/", notebook.auth)["name"] == "nanohubmcp"


def test_a_configured_proxy_url_gets_a_note_naming_the_streaming_route(notebook: StreamingNotebook) -> None:
    streaming = f"{notebook.nginx.origin}{WEBER_PATH}nanohubmcp/{notebook.mcp_port}/"
    assert f"set NanohubMCP.public_url = '{streaming}' to stream" in notebook.configured_cell.text


def test_a_server_run_in_the_notebook_is_reached_through_the_extension_too(notebook: StreamingNotebook) -> None:
    url = str(notebook.run_cell.results[-1]["text/plain"]).strip("'\"")
    prefix = f"https://proxy.{HUB_HOST}{WEBER_PATH}nanohubmcp/"
    assert url.startswith(prefix), url
    assert "streaming limited" not in notebook.run_cell.text

    async def call() -> str:
        async with client_with_headers(notebook.nginx.origin + urlsplit(url).path + "mcp", notebook.auth) as client:
            return str((await client.call_tool("twice", {"x": 21})).content[0].text)

    assert _run(call()) == "42"


def test_progress_of_a_streamable_http_call_arrives_while_the_tool_runs(notebook: StreamingNotebook) -> None:
    arrived: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        arrived.append(time.monotonic())

    async def call() -> tuple[str, float]:
        async with client_with_headers(notebook.base + "mcp", notebook.auth) as client:
            result = await client.call_tool("count_slowly", {"steps": STEPS}, progress_callback=on_progress)
            return str(result.content[0].text), time.monotonic()

    text, done = _run(call())
    assert text == f"counted to {STEPS}"
    assert_progress_streamed(arrived, done)


def test_an_elicitation_mid_call_is_answered_through_the_extension(notebook: StreamingNotebook) -> None:
    async def answer(context: Any, params: Any) -> Any:
        from mcp import types

        return types.ElicitResult(action="accept", content={"name": "alice"})

    async def call() -> str:
        async with client_with_headers(notebook.base + "mcp", notebook.auth, elicitation_callback=answer) as client:
            return str((await client.call_tool("ask_name", {})).content[0].text)

    assert _run(call()) == "hello alice"


def test_legacy_sse_and_session_delete_pass_through(notebook: StreamingNotebook) -> None:
    event, data = first_sse_event(notebook.base + "sse", notebook.auth)
    assert event == "endpoint"
    # A reference relative to the stream's URL: it resolves under the proxy's prefix.
    assert urljoin(f"{WEBER_PATH}nanohubmcp/{notebook.mcp_port}/sse", data).startswith(
        f"{WEBER_PATH}nanohubmcp/{notebook.mcp_port}/messages/?session_id=")

    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    accept = {"Accept": "application/json, text/event-stream", **notebook.auth}
    status, headers, body = request("POST", notebook.base + "mcp", initialize, headers=accept)
    assert status == 200, body[:300]
    session = headers["mcp-session-id"]
    version = {"MCP-Protocol-Version": "2025-11-25", "Mcp-Session-Id": session, **notebook.auth}
    assert request("DELETE", notebook.base + "mcp", headers=version)[0] in (200, 204)
    status, _, _ = request(
        "POST", notebook.base + "mcp", {"jsonrpc": "2.0", "id": 2, "method": "ping"}, headers={**accept, **version}
    )
    assert status == 404  # the kernel's server ended the session


def test_the_route_needs_jupyters_authentication(notebook: StreamingNotebook) -> None:
    assert request("POST", notebook.base + "mcp", {"jsonrpc": "2.0", "id": 1, "method": "ping"})[0] == 403
    assert request("GET", notebook.nginx.origin + WEBER_PATH + "nanohubmcp/")[0] == 403


def test_only_ports_a_kernel_of_this_server_registered_are_forwarded(notebook: StreamingNotebook) -> None:
    # Jupyter Server's own port is a loopback port too; it is not a kernel's MCP server.
    for port in (notebook.jupyter.port, free_port()):
        url = f"{notebook.nginx.origin}{WEBER_PATH}nanohubmcp/{port}/"
        status, _, body = request("GET", url, headers=notebook.auth)
        assert status == 404, body[:300]
        message = json.loads(body)["message"]
        assert "no notebook kernel of this Jupyter server serves MCP on port" in message
        assert "(a %%mcp_tool cell, %mcp start or server.run())" in message  # no doubled '%'s


def test_a_post_reply_streams_event_by_event_at_the_http_level(notebook: StreamingNotebook) -> None:
    """What the client library hides: each SSE event leaves the extension when the kernel sends it."""
    seen = timed_tool_call_events(
        notebook.base + "mcp", "count_slowly", {"steps": 3}, "application/json, text/event-stream", notebook.auth
    )
    methods = [message.get("method", "result") for _, message in seen]
    assert methods == ["notifications/progress"] * 3 + ["result"]
    assert seen[2][0] - seen[0][0] > STEP_SECONDS, seen


def test_a_notebook_server_with_its_own_token_is_reached_with_both_credentials(notebook: StreamingNotebook) -> None:
    """Jupyter's token in the URL, the MCP server's as ``Authorization: Bearer``: each reaches its server."""
    port = free_port()

    async def scenario() -> tuple[int, str]:
        kernel = await NotebookKernel.open(notebook.jupyter, "with-token.ipynb")
        try:
            await kernel.run_ok(
                f"%load_ext nanohubmcp\n%config NanohubMCP.port = {port}\n%config NanohubMCP.token = 'sekrit'"
            )
            await kernel.run_ok(ADD_CELL)
        finally:
            kernel.ws.close()
        url = f"{notebook.nginx.origin}{WEBER_PATH}nanohubmcp/{port}/mcp?token={notebook.jupyter.token}"
        refused, _, _ = request("POST", url, {"jsonrpc": "2.0", "id": 1, "method": "ping"})
        async with client_with_headers(url, {"Authorization": "Bearer sekrit"}) as client:
            return refused, str((await client.call_tool("add", {"a": 2, "b": 3})).content[0].text)

    refused, text = _run(scenario())
    assert refused == 401  # Jupyter let it through; the notebook's server wants its own token
    assert float(text) == 5.0


JUPYTER_PLACEHOLDER = "?token=<your Jupyter token>"


def test_the_status_and_url_put_jupyters_token_in_the_url(notebook: StreamingNotebook) -> None:
    """A fresh-user trial used the status's URL and snippets as shown and got Jupyter's 403 "'_xsrf'
    argument missing from POST": nothing said Jupyter's own token goes in the URL."""
    shown = notebook.detected_url + JUPYTER_PLACEHOLDER
    status = notebook.first_cell.text
    assert f"MCP endpoint: {shown}" in status
    assert f'"{shown}"' in status.split("Client configuration (desktop clients", 1)[1]  # the bridge's URL
    assert "jupyter server list" in status
    assert "jupyter server list" in notebook.url_cell.stdout  # %mcp url's note
    assert shown in notebook.url_cell.stdout
    assert notebook.jupyter.token not in status + notebook.url_cell.text  # never the secret itself


def test_the_python_snippet_as_shown_lists_the_tools_through_jupyter(notebook: StreamingNotebook) -> None:
    text = notebook.first_cell.text
    snippet = textwrap.dedent(text.split("Python client (official SDK):\n", 1)[1])
    snippet = snippet.replace(f"https://proxy.{HUB_HOST}", notebook.nginx.origin)  # the hub's host, here
    done = subprocess.run(
        [sys.executable, "-c", snippet], capture_output=True, text=True, timeout=60,
        env={**os.environ, "JUPYTER_TOKEN": notebook.jupyter.token},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "count_slowly" in done.stdout


def _bridge_answer(url: str) -> dict[str, Any]:
    """What ``nanohubmcp bridge URL`` answers a client's initialize with."""
    initialize = {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    done = subprocess.run(
        [sys.executable, "-m", "nanohubmcp", "bridge", url], input=json.dumps(initialize) + "\n",
        capture_output=True, text=True, timeout=60,
    )
    return dict(json.loads(done.stdout.splitlines()[0]))


def test_the_bridge_names_jupyters_token_when_jupyter_refuses(notebook: StreamingNotebook) -> None:
    message = _bridge_answer(notebook.base + "mcp")["error"]["message"]
    assert "HTTP 403 Forbidden" in message
    assert "'_xsrf' argument missing from POST" in message
    assert "needs Jupyter's own token in it, .../mcp?token=<Jupyter token>" in message
    wrong = _bridge_answer(notebook.base + "mcp?token=not-it")["error"]["message"]
    assert "refused the token in the URL" in wrong
    right = _bridge_answer(f"{notebook.base}mcp?token={notebook.jupyter.token}")
    assert right["result"]["serverInfo"]["name"]
