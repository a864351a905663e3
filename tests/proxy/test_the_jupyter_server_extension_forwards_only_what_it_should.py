"""The server extension's forwarding rules, against a real Jupyter Server and a real upstream server.

A Jupyter Server with the extension runs one kernel (a notebook session). Instead of an MCP
server, the upstream is a small Tornado app in this process that answers with what it received
(``/echo…``) or opens an event stream that stays idle until the connection closes (``/stream``);
its port is registered in the Jupyter runtime directory in the name of that kernel, as the
kernel's own server would be.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import signal
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tornado.httpserver
import tornado.web
from jupyter_behind_weber import JupyterServer, NotebookKernel
from nginx_weber import free_port
from proxy_support import request, write_session

from nanohubmcp.jupyter.serverext import registry

pytestmark = pytest.mark.slow

BASE_URL = "/user/alice/"


class Echo(tornado.web.RequestHandler):
    def _answer(self) -> None:
        self.set_status(201)
        self.set_header("X-Upstream", "yes")
        self.add_header("X-Twice", "1")
        self.add_header("X-Twice", "2")
        self.set_header("Keep-Alive", "timeout=5")  # hop-by-hop: must not reach the client
        self.finish(
            {
                "method": self.request.method,
                "path": self.request.path,
                "query": self.request.query,
                "body": self.request.body.decode(),
                "headers": {k.lower(): v for k, v in self.request.headers.get_all()},
            }
        )

    post = get = delete = _answer  # type: ignore[assignment]


class Stream(tornado.web.RequestHandler):
    closed: threading.Event

    async def get(self) -> None:
        """One event, then silence (an idle event stream) until the connection closes."""
        self.set_header("Content-Type", "text/event-stream")
        self.write("data: 0\n\n")
        await self.flush()
        while not self.closed.is_set():
            await asyncio.sleep(0.05)

    def on_connection_close(self) -> None:
        self.closed.set()


class Upstream:
    """The Tornado app above on 127.0.0.1, served from a thread of its own."""

    def __init__(self) -> None:
        self.stream_closed = threading.Event()
        Stream.closed = self.stream_closed
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.setblocking(False)
        self.port = int(self.sock.getsockname()[1])
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()

        def serve() -> None:
            asyncio.set_event_loop(self.loop)
            app = tornado.web.Application([(r"/echo.*", Echo), (r"/stream", Stream)])
            self.http = tornado.httpserver.HTTPServer(app)
            self.http.add_sockets([self.sock])
            self.loop.call_soon(ready.set)
            self.loop.run_forever()

        self.thread = threading.Thread(target=serve, daemon=True)
        self.thread.start()
        assert ready.wait(10)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.http.stop)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


KERNEL_PIDS: dict[str, int] = {}
"""Each opened kernel's process id, as the kernel itself reports it (what its port file holds)."""


def _register(runtime: Path, port: int, kernel_id: str) -> None:
    pid = KERNEL_PIDS.get(kernel_id, 1)
    registry.write_json(
        registry.port_path(runtime, port), {"version": 1, "port": port, "kernel_id": kernel_id, "pid": pid}
    )


async def _open_kernel(jupyter: JupyterServer, notebook: str) -> str:
    """Open a notebook session's kernel, note its process id, leave it running (until the server stops)."""
    kernel = await NotebookKernel.open(jupyter, notebook)
    out = await kernel.execute("import os; print(os.getpid())")
    KERNEL_PIDS[kernel.kernel_id] = int(out.stdout.strip())
    kernel.ws.close()
    return kernel.kernel_id


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[JupyterServer, Upstream]]:
    work = tmp_path_factory.mktemp("extension-rules")
    (work / "jupyter").mkdir()
    jupyter = JupyterServer(work / "jupyter", free_port(), BASE_URL, write_session(work / "session"), extension=True)
    jupyter.start()
    upstream = Upstream()
    try:

        kernel_id = asyncio.run(asyncio.wait_for(_open_kernel(jupyter, "rules.ipynb"), 60))
        _register(work / "jupyter" / "runtime", upstream.port, kernel_id)
        yield jupyter, upstream
    finally:
        upstream.stop()
        jupyter.stop()


def test_the_request_reaches_the_kernel_port_without_jupyters_credentials(
    setup: tuple[JupyterServer, Upstream],
) -> None:
    jupyter, upstream = setup
    url = f"{jupyter.url}nanohubmcp/{upstream.port}/echo?x=1&token={jupyter.token}"
    headers = {
        "Authorization": "Bearer for-the-mcp-server",
        "Cookie": "username-127-0-0-1=abc",
        "X-Custom": "kept",
        "Connection": "X-Hop",
        "X-Hop": "dropped",
    }
    status, answer_headers, body = request("POST", url, {"a": 1}, headers=headers)
    assert status == 201, body[:300]
    seen = json.loads(body)
    assert (seen["method"], seen["path"], seen["query"], json.loads(seen["body"])) == ("POST", "/echo", "x=1", {"a": 1})
    sent = seen["headers"]
    assert sent["authorization"] == "Bearer for-the-mcp-server"
    assert sent["x-custom"] == "kept"
    assert sent["host"] == f"127.0.0.1:{upstream.port}"
    assert "cookie" not in sent
    assert "x-hop" not in sent
    assert answer_headers["x-upstream"] == "yes"
    assert answer_headers["content-type"].startswith("application/json")
    assert "keep-alive" not in answer_headers


def _answer(setup: tuple[JupyterServer, Upstream], tail: str, status: int) -> Any:
    """The reply's JSON to a GET of ``nanohubmcp/<upstream port>/<tail>``, whose status must be ``status``."""
    jupyter, upstream = setup
    conn = http.client.HTTPConnection("127.0.0.1", jupyter.port, timeout=10)
    try:
        conn.request("GET", f"{BASE_URL}nanohubmcp/{upstream.port}/{tail}", headers=jupyter.auth)
        response = conn.getresponse()
        text = response.read()
    finally:
        conn.close()
    assert response.status == status, text[:300]
    return json.loads(text)


@pytest.mark.parametrize(("tail", "seen"), [
    ("echo/ec%20ho", "/echo/ec%20ho"),  # was forwarded decoded: "GET /echo/ec ho HTTP/1.1", the kernel's 400
    ("echo/a%2Fb", "/echo/a%2Fb"),  # was /echo/a/b: another path
    ("echo%2F..%2Fecho", "/echo%2F..%2Fecho"),
    ("echo/%65%25", "/echo/%65%25"),
])
def test_the_path_is_forwarded_as_the_client_sent_it(
    setup: tuple[JupyterServer, Upstream], tail: str, seen: str,
) -> None:
    """Review r40 (R40-3): the route's decoded path argument was forwarded."""
    body = _answer(setup, tail, 201)
    assert (body["path"], body["query"]) == (seen, "")


def test_an_escaped_question_mark_is_no_query_the_token_filter_did_not_see(
    setup: tuple[JupyterServer, Upstream],
) -> None:
    body = _answer(setup, f"echo%3Ftoken=hidden&a=1?b=2&token={setup[0].token}", 201)
    assert (body["path"], body["query"]) == ("/echo%3Ftoken=hidden&a=1", "b=2")


@pytest.mark.parametrize(("tail", "named"), [
    ("echo%0D%0AX-Injected:%201", "%0D, an escaped control character"),  # was a 500 with a logged traceback
    ("echo%00", "%00, an escaped control character"),
    ("echo%zz", "a '%' not followed by two hex digits"),
    ('echo"', "'\"', which a URL path holds only percent-encoded (%22)"),
])
def test_a_path_that_cannot_be_forwarded_is_a_400_naming_why(
    setup: tuple[JupyterServer, Upstream], tail: str, named: str,
) -> None:
    message = _answer(setup, tail, 400)["message"]
    assert message.startswith(f"the path after nanohubmcp/{setup[1].port} cannot be forwarded: it holds ")
    assert named in message


def test_a_jupyter_token_header_is_not_forwarded_and_repeated_headers_pass(
    setup: tuple[JupyterServer, Upstream],
) -> None:
    jupyter, upstream = setup
    conn = http.client.HTTPConnection("127.0.0.1", jupyter.port, timeout=10)
    try:
        conn.request("DELETE", f"{BASE_URL}nanohubmcp/{upstream.port}/echo", headers=jupyter.auth)
        response = conn.getresponse()
        seen = json.loads(response.read())
        assert response.status == 201
        assert response.headers.get_all("X-Twice") == ["1", "2"]
    finally:
        conn.close()
    assert seen["method"] == "DELETE"
    assert "authorization" not in seen["headers"]


def test_a_bearer_header_that_carried_jupyters_own_token_is_not_forwarded(
    setup: tuple[JupyterServer, Upstream],
) -> None:
    jupyter, upstream = setup
    bearer = {"Authorization": f"Bearer {jupyter.token}"}
    status, _, body = request("GET", f"{jupyter.url}nanohubmcp/{upstream.port}/echo", headers=bearer)
    assert status == 201, body[:300]
    assert "authorization" not in json.loads(body)["headers"]


def test_a_port_registered_for_a_kernel_that_is_gone_is_refused(
    setup: tuple[JupyterServer, Upstream],
) -> None:
    jupyter = setup[0]
    other = free_port()
    _register(jupyter.workdir / "runtime", other, "00000000-dead-kernel")
    status, _, body = request("GET", f"{jupyter.url}nanohubmcp/{other}/echo", headers=jupyter.auth)
    assert status == 404, body[:300]


def test_a_port_of_a_kernel_that_crashed_is_refused_even_after_jupyter_restarts_it(
    setup: tuple[JupyterServer, Upstream],
) -> None:
    """Found by a fresh-user trial: after ``kill -9`` of the kernel (Jupyter restarts it under the same
    id) the extension still forwarded to the port, so whoever bound it next got the client's token."""
    jupyter, upstream = setup
    kernel_id = asyncio.run(asyncio.wait_for(_open_kernel(jupyter, "crash.ipynb"), 60))
    port = upstream.port  # stands in for the port the crashed kernel's server freed and another process took
    runtime = jupyter.workdir / "runtime"
    original = registry.read_port(runtime, port)
    _register(runtime, port, kernel_id)
    try:
        status, _, body = request("GET", f"{jupyter.url}nanohubmcp/{port}/echo", headers=jupyter.auth)
        assert status == 201, body[:300]  # forwarded while the kernel that registered it lives
        os.kill(KERNEL_PIDS[kernel_id], signal.SIGKILL)
        deadline = time.monotonic() + 30
        while registry.is_alive(KERNEL_PIDS[kernel_id]) and time.monotonic() < deadline:
            time.sleep(0.05)  # the kernel process is reaped by Jupyter
        status, _, body = request("GET", f"{jupyter.url}nanohubmcp/{port}/echo", headers=jupyter.auth)
        assert status == 404, body[:300]
        assert b"died or restarted" in body
        assert registry.read_port(runtime, port) is None  # the stale file is gone
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # Jupyter's restarter brings the kernel back under the same id
            if kernel_id in _kernel_ids(jupyter):
                _register(runtime, port, kernel_id)  # a file still naming the dead process
                status, _, body = request("GET", f"{jupyter.url}nanohubmcp/{port}/echo", headers=jupyter.auth)
                assert status == 404, body[:300]
                break
            time.sleep(0.1)
    finally:
        assert original is not None
        registry.write_json(registry.port_path(runtime, port), original)


def test_a_registered_port_nobody_listens_on_is_a_bad_gateway(setup: tuple[JupyterServer, Upstream]) -> None:
    jupyter, _ = setup
    kernel_id = _kernel_ids(jupyter)[0]
    silent = free_port()
    _register(jupyter.workdir / "runtime", silent, kernel_id)
    status, _, body = request("GET", f"{jupyter.url}nanohubmcp/{silent}/echo", headers=jupyter.auth)
    assert status == 502, body[:300]
    assert f"the notebook's MCP server on port {silent} does not answer" in json.loads(body)["message"]


def test_a_client_that_goes_away_closes_the_kernel_connection(setup: tuple[JupyterServer, Upstream]) -> None:
    jupyter, upstream = setup
    conn = http.client.HTTPConnection("127.0.0.1", jupyter.port, timeout=10)
    conn.request("GET", f"{BASE_URL}nanohubmcp/{upstream.port}/stream", headers=jupyter.auth)
    response = conn.getresponse()
    assert response.status == 200
    assert response.getheader("Content-Type") == "text/event-stream"
    assert response.readline() == b"data: 0\n"
    assert not upstream.stream_closed.is_set()
    conn.close()
    assert upstream.stream_closed.wait(10), "the upstream stream stayed open after the client left"


def _kernel_ids(jupyter: JupyterServer) -> list[Any]:
    status, _, body = request("GET", jupyter.url + "api/kernels", headers=jupyter.auth)
    assert status == 200
    return [k["id"] for k in json.loads(body)]


def test_the_info_route_answers_only_with_authentication(setup: tuple[JupyterServer, Upstream]) -> None:
    jupyter, _ = setup
    assert request("GET", f"{jupyter.url}nanohubmcp/")[0] == 403
    status, _, body = request("GET", f"{jupyter.url}nanohubmcp/", headers=jupyter.auth)
    assert status == 200
    assert json.loads(body)["name"] == "nanohubmcp"
    started = time.monotonic()
    assert request("GET", f"{jupyter.url}nanohubmcp/1/echo", headers=jupyter.auth)[0] == 404
    assert time.monotonic() - started < 10
