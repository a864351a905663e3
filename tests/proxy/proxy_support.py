"""Helpers of the proxy tests: the app served behind the proxies, plain HTTP calls, SSE reading.

``make_app_server()`` builds the MCP server every proxy test serves: ``add`` (a plain tool),
``count_slowly`` (reports progress, then waits before answering, so a test can tell whether the
progress crossed the proxy before the result did), ``ask_name`` (elicits a name from the
client mid-call) and ``square_later`` (an async job tool).
HTTP helpers use the standard library with a timeout on every call, and an optional header
dict (a Jupyter token).
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from nanohubmcp import Context, MCPServer
from nanohubmcp.nanohub.proxy import ProxyInfo

if TYPE_CHECKING:
    from nginx_weber import Nginx

SESSION = "4242"
COOKIE = "c00kieXYZ"
FILEXFER_PORT = 38123
WEBER_PATH = f"/weber/{SESSION}/{COOKIE}/{FILEXFER_PORT % 1000}/"
HUB_HOST = "hub.test"
"""A hub that is not nanohub.org: the proxy host must come from ``hub_url``."""

HTTP_TIMEOUT = 10.0
PAUSE_AFTER_PROGRESS = 1.5
"""Seconds ``count_slowly`` waits after its last progress notification before answering."""


STEPS = 10
STEP_SECONDS = 0.2


def steady_progress_cell(name: str) -> str:
    """A ``%%mcp_tool`` cell defining ``name(steps, ctx)``: one progress notification every
    :data:`STEP_SECONDS` s, then the answer ``"counted to <steps>"``."""
    return f'''%%mcp_tool
import time
from nanohubmcp import Context

def {name}(steps: int, ctx: Context) -> str:
    """Report progress once every {STEP_SECONDS} s, then answer."""
    for step in range(1, steps + 1):
        time.sleep({STEP_SECONDS})
        ctx.report_progress(step, total=steps, message=f"step {{step}}")
    return f"counted to {{steps}}"
'''


def assert_progress_streamed(arrived: list[float], done: float) -> None:
    """:data:`STEPS` progress notifications of a steady cell came one by one, well before the result
    (``time.monotonic()`` values); buffered, they would all arrive with it."""
    spread = (STEPS - 1) * STEP_SECONDS * 0.6
    assert len(arrived) == STEPS
    assert arrived[-1] - arrived[0] > spread, [t - done for t in arrived]
    assert done - arrived[0] > spread, [t - done for t in arrived]


def write_session(sessiondir: Path) -> dict[str, str]:
    """Make a fake session directory; returns the SESSION/SESSIONDIR environment for it.

    Its ``resources`` file is written as a hub writes it: CRLF endings, quoted values and keys
    the detector does not read.
    """
    sessiondir.mkdir(parents=True)
    (sessiondir / "resources").write_bytes(
        (
            f"sessionid {SESSION}\r\n"
            'application_name "MCP weber test"\r\n'
            f'hub_url "https://{HUB_HOST}"\r\n'
            f"filexfer_port {FILEXFER_PORT}\r\n"
            f"filexfer_cookie {COOKIE}\r\n"
            "session_token s3cr3t\r\n"
        ).encode()
    )
    return {"SESSION": SESSION, "SESSIONDIR": str(sessiondir)}


@dataclass
class Weber:
    """The app behind nginx: what was detected, what the server advertises, and nginx."""

    setup: str
    detected: ProxyInfo
    info: ProxyInfo
    server: MCPServer
    nginx: Nginx

    @property
    def public_url(self) -> str:
        """The URL clients use: nginx's origin + the weber path (trailing slash)."""
        assert self.info.public_url is not None
        return self.info.public_url


StartWeber = Callable[..., Weber]
"""``start_weber(setup, *, advertise_detected=False, **server_options) -> Weber`` (a fixture)."""


def make_app_server() -> MCPServer:
    """The server behind the proxies (a fresh one per test)."""
    server = MCPServer("weber-test", "2.0.0")

    @server.tool()
    def add(a: float, b: float) -> float:
        """Add two numbers."""
        return a + b

    @server.tool()
    async def count_slowly(steps: int, ctx: Context) -> str:
        """Report progress ``steps`` times, wait, then answer.

        Args:
            steps: how many progress notifications to send.
        """
        for step in range(1, steps + 1):
            ctx.report_progress(step, total=steps, message=f"step {step}")
        await asyncio.sleep(PAUSE_AFTER_PROGRESS)
        return f"counted to {steps}"

    @server.tool()
    def ask_name(ctx: Context) -> str:
        """Ask the user's name through the client (waits 5 s at most)."""
        schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
        reply = ctx.elicit("What is your name?", schema, timeout=5)
        return "hello " + reply["content"]["name"]

    @server.async_tool()
    def square_later(x: int) -> dict[str, int]:
        """Square a number in a background job.

        Args:
            x: the number.
        """
        time.sleep(0.1)
        return {"square": x * x}

    return server


def request(
    method: str, url: str, body: Any = None, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    """One HTTP request; returns ``(status, headers (lower-case names), body)``."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=HTTP_TIMEOUT)
    try:
        data = None if body is None else json.dumps(body).encode()
        sent = {"Content-Type": "application/json"} if data is not None else {}
        sent.update(headers or {})
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        conn.request(method, target, body=data, headers=sent)
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


def get_json(url: str, headers: dict[str, str] | None = None) -> Any:
    """GET a JSON document that must answer 200."""
    status, _, body = request("GET", url, headers=headers)
    assert status == 200, (url, status, body[:300])
    return json.loads(body)


def post_json(url: str, body: Any, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    """POST JSON; returns ``(status, decoded body or None)``."""
    status, _, raw = request("POST", url, body, headers=headers)
    return status, (json.loads(raw) if raw else None)


def first_sse_event(url: str, headers: dict[str, str] | None = None) -> tuple[str, str]:
    """Open an SSE stream, return its first event as ``(event, data)`` and close it."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=HTTP_TIMEOUT)
    try:
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        conn.request("GET", target, headers={"Accept": "text/event-stream", **(headers or {})})
        response = conn.getresponse()
        assert response.status == 200, (url, response.status, response.read(300))
        assert response.getheader("Content-Type", "").startswith("text/event-stream")
        event, data = "message", []
        deadline = time.monotonic() + HTTP_TIMEOUT
        while time.monotonic() < deadline:
            line = response.fp.readline().decode().rstrip("\r\n")
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].strip())
            elif not line and data:
                return event, "\n".join(data)
        raise TimeoutError(f"no SSE event from {url} within {HTTP_TIMEOUT} s")
    finally:
        conn.close()


def timed_tool_call_events(
    url: str, tool: str, arguments: dict[str, Any], accept: str, headers: dict[str, str] | None = None
) -> list[tuple[float, dict[str, Any]]]:
    """POST one ``tools/call`` (with a progress token) to a Streamable HTTP ``url``, read its SSE reply.

    Returns ``(time.monotonic() when it arrived, message)`` for every event up to the response.
    The reply must be a 200 event stream.
    """
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=HTTP_TIMEOUT)
    try:
        body = {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments, "_meta": {"progressToken": "p"}},
        }
        sent = {
            "Content-Type": "application/json",
            "Accept": accept,
            "MCP-Protocol-Version": "2025-11-25",
            **(headers or {}),
        }
        conn.request("POST", parts.path, json.dumps(body), sent)
        response = conn.getresponse()
        assert response.status == 200, response.read(300)
        assert response.getheader("Content-Type", "").startswith("text/event-stream")
        seen: list[tuple[float, dict[str, Any]]] = []
        while not seen or "id" not in seen[-1][1]:
            line = response.fp.readline()
            assert line, "stream ended before the result"
            if line.startswith(b"data:"):
                seen.append((time.monotonic(), json.loads(line[5:])))
        return seen
    finally:
        conn.close()


@contextlib.asynccontextmanager
async def client_with_headers(
    url: str, headers: dict[str, str], *, transport: str = "http", **session_options: Any
) -> AsyncIterator[Any]:
    """An initialized official ``mcp`` ClientSession sending ``headers`` on every request.

    ``session_options`` go to ``ClientSession`` (e.g. ``elicitation_callback``).
    """
    from mcp import ClientSession

    async with contextlib.AsyncExitStack() as stack:
        if transport == "sse":
            from mcp.client.sse import sse_client

            streams = await stack.enter_async_context(
                sse_client(url, headers=headers, timeout=HTTP_TIMEOUT, sse_read_timeout=30)
            )
        else:
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            http = await stack.enter_async_context(
                httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=60.0))
            )
            streams = await stack.enter_async_context(streamable_http_client(url, http_client=http))
        session = await stack.enter_async_context(ClientSession(streams[0], streams[1], **session_options))
        await session.initialize()
        yield session


async def timed_progress_call(session: Any, steps: int = 3) -> tuple[str, list[float], float]:
    """Call ``count_slowly``; returns its text, when each progress arrived and when the result did.

    Times are ``time.monotonic()`` values. A proxy that buffers the SSE reply delivers the
    progress notifications together with the result, i.e. at (almost) the same time.
    """
    arrived: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        arrived.append(time.monotonic())

    result = await session.call_tool("count_slowly", {"steps": steps}, progress_callback=on_progress)
    done = time.monotonic()
    return str(result.content[0].text), arrived, done
