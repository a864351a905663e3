"""Client mistakes get the documented error — never a 500 — and the server keeps serving.

Each case sends one bad request to a real server on a loopback port, checks the HTTP status,
the JSON-RPC error code and that the message says what to fix, then checks that a good
request still works (on the same keep-alive connection when the server keeps it open).

Sources: JSON-RPC 2.0 §§ 4-5; MCP 2025-11-25, Basic § Transports § Streamable HTTP (202 for
notifications, 404 for unknown sessions, 400 for a bad MCP-Protocol-Version, 403 for a foreign
Origin, 406 for GET without text/event-stream).
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from http.client import HTTPException, HTTPResponse
from typing import Any

import pytest
from raw_http import Http, Reply, port_of
from support import serve

from nanohubmcp import MCPServer

LIMIT = 64 * 1024  # max_request_bytes of the small-limit server


def calculator() -> MCPServer:
    server = MCPServer("bad-input")

    @server.tool()
    def add(a: float, b: float) -> float:
        """Add two numbers."""
        return a + b

    return server


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serve(calculator(), max_request_bytes=LIMIT) as base:
        yield base


@pytest.fixture
def http(url: str) -> Iterator[Http]:
    with Http(url) as connection:
        yield connection


def ping_works(connection: Http) -> None:
    reply = connection.rpc("ping", id="still-there")
    assert (reply.status, reply.json) == (200, {"jsonrpc": "2.0", "id": "still-there", "result": {}})


def still_serving(url: str, connection: Http | None = None) -> None:
    """A good request works on ``connection`` (kept alive) and on a new connection."""
    if connection is not None:
        ping_works(connection)
    with Http(url) as fresh:
        ping_works(fresh)


def error_of(reply: Reply) -> dict[str, Any]:
    body = reply.json
    assert body["jsonrpc"] == "2.0"
    assert set(body) == {"jsonrpc", "id", "error"}, body
    assert isinstance(body["error"]["message"], str)
    assert body["error"]["message"]
    return body


def initialize(connection: Http, version: str) -> str:
    """Open a Streamable HTTP session at ``version``; returns its id."""
    params = {"protocolVersion": version, "capabilities": {},
              "clientInfo": {"name": "bad-input-test", "version": "0"}}
    reply = connection.rpc("initialize", params, path="/mcp")
    assert reply.status == 200
    assert reply.json["result"]["protocolVersion"] == version
    session = reply.header("Mcp-Session-Id")
    assert session
    done = connection.post("/mcp", {"jsonrpc": "2.0", "method": "notifications/initialized"},
                           {"Mcp-Session-Id": session, "MCP-Protocol-Version": version})
    assert done.status == 202
    return session


# -- JSON-RPC envelope mistakes -------------------------------------------------------------
ENVELOPES = [
    # (case, body, HTTP status, JSON-RPC code, words in the message, id in the reply)
    ("malformed JSON", b'{"jsonrpc": "2.0", "id": 1, "method": ', 400, -32700, "Parse error", None),
    ("not UTF-8", b"\xff\xfe\x00", 400, -32700, "Parse error", None),
    ("empty body", b"", 400, -32700, "empty", None),
    ("NaN literal", b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":NaN}}', 400, -32700,
     "Parse error", None),
    ("a JSON string", b'"ping"', 400, -32600, "must be a JSON object", None),
    ("jsonrpc 1.0", b'{"jsonrpc":"1.0","id":1,"method":"ping"}', 400, -32600, '"jsonrpc"', 1),
    ("no jsonrpc member", b'{"id":1,"method":"ping"}', 400, -32600, '"jsonrpc"', 1),
    ("no method", b'{"jsonrpc":"2.0","id":2}', 400, -32600, "method", 2),
    ("method not a string", b'{"jsonrpc":"2.0","id":3,"method":7}', 400, -32600, "method", 3),
    ("number beyond a double", b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add",'
     b'"arguments":{"a":1e400,"b":1}}}', 400, -32700, "1e400 is too large", None),
    ("a 5001-digit integer", b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"n":' + b"9" * 5001 + b"}}",
     400, -32700, "digits; send it as a string", None),
    ("id null", b'{"jsonrpc":"2.0","id":null,"method":"ping"}', 400, -32600, '"id" must be a string or an '
     "integer, not null", None),
    ("id float", b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', 400, -32600, "not the number 1.5", None),
    ("id object", b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', 400, -32600, "not an object", None),
    ("id boolean", b'{"jsonrpc":"2.0","id":true,"method":"ping"}', 400, -32600, "not a boolean", None),
    ("params a list", b'{"jsonrpc":"2.0","id":4,"method":"ping","params":[1,2]}', 400, -32602, "params", 4),
    ("params a string", b'{"jsonrpc":"2.0","id":5,"method":"ping","params":"x"}', 400, -32602, "params", 5),
    ("empty batch", b"[]", 400, -32600, "empty", None),
]


@pytest.mark.parametrize(("case", "body", "status", "code", "words", "rid"), ENVELOPES,
                         ids=[e[0] for e in ENVELOPES])
@pytest.mark.parametrize("path", ["/", "/mcp"])
def test_envelope_mistakes(http: Http, url: str, path: str, case: str, body: bytes, status: int, code: int,
                           words: str, rid: Any) -> None:
    reply = http.post(path, body)
    assert reply.status == status, reply.raw
    assert reply.header("Content-Type").startswith("application/json")
    error = error_of(reply)
    assert error["error"]["code"] == code
    assert words in error["error"]["message"]
    assert error["id"] == rid
    still_serving(url, http)


def test_a_batch_is_refused_from_2025_06_18_on(http: Http, url: str) -> None:
    batch = [{"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"jsonrpc": "2.0", "id": 2, "method": "ping"}]
    reply = http.post("/mcp", batch, {"MCP-Protocol-Version": "2025-06-18"})
    assert reply.status == 400
    assert error_of(reply)["error"]["code"] == -32600
    assert "batch" in reply.json["error"]["message"]
    older = http.post("/mcp", batch, {"MCP-Protocol-Version": "2025-03-26"})
    assert older.status == 200
    assert [r["id"] for r in older.json] == [1, 2]
    still_serving(url, http)


def test_unknown_method_is_method_not_found(http: Http, url: str) -> None:
    reply = http.rpc("tools/frobnicate", {}, id=9)
    assert reply.status == 200
    assert error_of(reply) == {"jsonrpc": "2.0", "id": 9,
                               "error": {"code": -32601, "message": "Method not found: tools/frobnicate"}}
    still_serving(url, http)


LONG_NAME = "x" * 50_000  # within the 64 KiB body limit


@pytest.mark.parametrize(("method", "params", "start"), [
    (LONG_NAME, {}, "Method not found: xxx"),
    ("tools/call", {"name": LONG_NAME, "arguments": {}}, "Unknown tool: xxx"),
    ("prompts/get", {"name": LONG_NAME}, "Unknown prompt: xxx"),
])
def test_a_long_unknown_name_is_echoed_cut_short(http: Http, url: str, method: str, params: dict[str, Any],
                                                 start: str) -> None:
    """trial14 F11: a 1 MB method or tool name came back whole in the error (a 1 MB answer); it is
    cut to the 300 characters an invalid-arguments message keeps of a value, with "…"."""
    reply = http.rpc(method, params, id=21)
    message = error_of(reply)["error"]["message"]
    assert message.startswith(start), message[:100]
    assert message.endswith("…"), message[-100:]
    assert len(message) < 400, len(message)
    rest = http.post("/tools/" + "y" * 5000, {})
    assert rest.status == 404
    assert len(rest.raw) < 2000, rest.raw[:200]
    assert "Unknown tool: yyy" in rest.raw.decode()
    still_serving(url, http)


# -- tools/call mistakes ---------------------------------------------------------------------
CALLS = [
    ("name a list", {"name": ["add"], "arguments": {"a": 1, "b": 2}}, "name"),
    ("name an object", {"name": {"tool": "add"}}, "name"),
    ("name missing", {"arguments": {}}, "name"),
    ("name a number", {"name": 42}, "name"),
    ("unknown tool", {"name": "no_such_tool", "arguments": {}}, "Unknown tool: no_such_tool"),
    ("arguments a list", {"name": "add", "arguments": [1, 2]}, "arguments"),
    ("arguments a string", {"name": "add", "arguments": "a=1"}, "arguments"),
]


@pytest.mark.parametrize(("case", "params", "words"), CALLS, ids=[c[0] for c in CALLS])
def test_malformed_tools_call_is_invalid_params_never_500(http: Http, url: str, case: str,
                                                           params: dict[str, Any], words: str) -> None:
    reply = http.rpc("tools/call", params, id=11)
    assert reply.status < 500
    error = error_of(reply)
    assert error["id"] == 11
    assert error["error"]["code"] == -32602
    assert words in error["error"]["message"]
    still_serving(url, http)


WRONG_ARGUMENTS = [
    ({"a": "one", "b": 2}, "\"one\" is not of type \"number\""),
    ({"a": 1}, "\"b\" is a required property"),
    ({"a": 1, "b": 2, "c": 3}, '"c"'),
    ({"a": True, "b": 2}, "true is not of type \"number\""),
]


@pytest.mark.parametrize(("arguments", "words"), WRONG_ARGUMENTS)
def test_wrong_argument_types_are_a_protocol_error_on_2025_06_18(
    http: Http, url: str, arguments: dict[str, Any], words: str
) -> None:
    session = initialize(http, "2025-06-18")
    headers = {"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-06-18"}
    params = {"name": "add", "arguments": arguments}
    reply = http.rpc("tools/call", params, id=12, path="/mcp", headers=headers)
    assert reply.status == 200
    error = error_of(reply)
    assert error["id"] == 12
    assert error["error"]["code"] == -32602
    assert "add" in error["error"]["message"]
    assert words in error["error"]["message"]
    still_serving(url, http)


@pytest.mark.parametrize(("arguments", "words"), WRONG_ARGUMENTS)
def test_wrong_argument_types_are_a_tool_error_on_2025_11_25(
    http: Http, url: str, arguments: dict[str, Any], words: str
) -> None:
    session = initialize(http, "2025-11-25")
    headers = {"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"}
    params = {"name": "add", "arguments": arguments}
    reply = http.rpc("tools/call", params, id=13, path="/mcp", headers=headers)
    assert reply.status == 200
    body = reply.json
    assert body["id"] == 13
    result = body["result"]
    assert result["isError"] is True
    [block] = result["content"]
    assert block["type"] == "text"
    assert words in block["text"]
    still_serving(url, http)


def test_unknown_tool_is_invalid_params_in_a_2025_11_25_session_too(http: Http, url: str) -> None:
    session = initialize(http, "2025-11-25")
    reply = http.rpc("tools/call", {"name": "nope", "arguments": {}}, id=14, path="/mcp",
                     headers={"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"})
    assert error_of(reply)["error"]["code"] == -32602


# -- HTTP-level mistakes ---------------------------------------------------------------------
def test_a_non_json_content_type_is_415(http: Http, url: str) -> None:
    reply = http.request("POST", "/mcp", b'{"jsonrpc":"2.0","id":1,"method":"ping"}',
                         {"Content-Type": "text/plain"})
    assert reply.status == 415
    assert "Content-Type" in error_of(reply)["error"]["message"]
    still_serving(url, http)


def test_unsupported_protocol_version_header_is_400(http: Http, url: str) -> None:
    reply = http.rpc("ping", id=15, path="/mcp", headers={"MCP-Protocol-Version": "1999-01-01"})
    assert reply.status == 400
    error = error_of(reply)
    assert "MCP-Protocol-Version" in error["error"]["message"]
    assert "2025-11-25" in error["error"]["data"]["supported"]
    still_serving(url, http)


@pytest.mark.parametrize(("negotiated", "header"), [("2025-11-25", "2024-11-05"), ("2024-11-05", "2025-11-25")])
def test_a_session_answers_at_its_negotiated_version_whatever_supported_version_the_header_names(
        http: Http, negotiated: str, header: str) -> None:
    # trial19 F15, decided: accepted, as the official conformance suite needs (it sends 2025-03-26 on
    # 2025-11-25 sessions); the header cannot change the session's version. Invalid arguments show it:
    # an isError result from 2025-11-25 on (SEP-1303), a -32602 error before.
    session = initialize(http, negotiated)
    reply = http.rpc("tools/call", {"name": "add", "arguments": {"a": "x", "b": 1}}, id=17, path="/mcp",
                     headers={"Mcp-Session-Id": session, "MCP-Protocol-Version": header})
    assert reply.status == 200
    if negotiated == "2025-11-25":
        assert reply.json["result"]["isError"] is True
    else:
        assert reply.json["error"]["code"] == -32602


def test_every_supported_protocol_version_header_is_accepted(http: Http) -> None:
    for version in ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"):
        reply = http.rpc("ping", id=version, path="/mcp", headers={"MCP-Protocol-Version": version})
        assert (reply.status, reply.json.get("result")) == (200, {}), version


def test_unknown_session_id_is_404(http: Http, url: str) -> None:
    reply = http.rpc("ping", id=16, path="/mcp", headers={"Mcp-Session-Id": "made-up-by-the-client"})
    assert reply.status == 404
    assert "initialize" in error_of(reply)["error"]["message"]
    still_serving(url, http)


def test_a_client_chosen_session_id_is_never_adopted(http: Http) -> None:
    reply = http.rpc("initialize", {"protocolVersion": "2025-11-25"}, path="/mcp",
                     headers={"Mcp-Session-Id": "attacker-chosen"})
    assert reply.status == 200
    minted = reply.header("Mcp-Session-Id")
    assert minted
    assert minted != "attacker-chosen"
    assert http.rpc("ping", path="/mcp", headers={"Mcp-Session-Id": "attacker-chosen"}).status == 404


def test_delete_ends_the_session_then_it_is_404(http: Http, url: str) -> None:
    session = initialize(http, "2025-11-25")
    headers = {"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"}
    assert http.rpc("ping", path="/mcp", headers=headers).status == 200
    deleted = http.request("DELETE", "/mcp", headers=headers)
    assert (deleted.status, deleted.raw) == (204, b"")
    assert http.rpc("ping", path="/mcp", headers=headers).status == 404
    assert http.request("DELETE", "/mcp", headers=headers).status == 404
    still_serving(url, http)


def test_get_mcp_without_event_stream_in_accept_is_406(http: Http, url: str) -> None:
    session = initialize(http, "2025-11-25")
    reply = http.get("/mcp", {"Accept": "text/html", "Mcp-Session-Id": session})
    assert reply.status == 406
    assert "text/event-stream" in error_of(reply)["error"]["message"]
    still_serving(url, http)


def test_notifications_and_client_responses_get_202_and_no_body(http: Http, url: str) -> None:
    for path in ("/", "/mcp"):
        note = http.post(path, {"jsonrpc": "2.0", "method": "notifications/initialized", "params": {}})
        assert (note.status, note.raw) == (202, b"")
        assert note.header("Content-Type") is None
        unknown = http.post(path, {"jsonrpc": "2.0", "method": "notifications/whatever"})
        assert (unknown.status, unknown.raw) == (202, b"")
        response = http.post(path, {"jsonrpc": "2.0", "id": "server-1", "result": {}})
        assert (response.status, response.raw) == (202, b"")
    still_serving(url, http)


# -- Origin --------------------------------------------------------------------------------
@pytest.mark.parametrize("origin", ["http://evil.example", "https://attacker.test:8443", "null",
                                    "http://localhost.evil.example"])
def test_a_foreign_origin_is_403(url: str, origin: str) -> None:
    with Http(url) as connection:
        reply = connection.rpc("ping", id=17, headers={"Origin": origin})
        assert reply.status == 403
        assert "allowed_origins" in error_of(reply)["error"]["message"]
        assert reply.header("Access-Control-Allow-Origin") is None
    still_serving(url)


@pytest.mark.parametrize("origin", ["http://localhost:3000", "http://127.0.0.1:5173", "http://[::1]:8080",
                                    "https://localhost"])
def test_a_loopback_origin_is_allowed(http: Http, url: str, origin: str) -> None:
    reply = http.rpc("ping", id=18, headers={"Origin": origin})
    assert (reply.status, reply.json["result"]) == (200, {})
    assert reply.header("Access-Control-Allow-Origin") == origin
    still_serving(url, http)


def test_allowed_origins_widens_the_policy() -> None:
    with serve(calculator(), allowed_origins=["https://nanohub.org"]) as base, Http(base) as connection:
        assert connection.rpc("ping", headers={"Origin": "https://nanohub.org"}).status == 200
        assert connection.rpc("ping", headers={"Origin": "http://localhost:1"}).status == 200
    with serve(calculator(), allowed_origins=["https://nanohub.org"]) as base, Http(base) as connection:
        assert connection.rpc("ping", headers={"Origin": "https://evil.example"}).status == 403


# -- body size -----------------------------------------------------------------------------
def test_a_body_over_the_limit_is_413_and_the_server_keeps_serving(url: str) -> None:
    with Http(url) as connection:
        reply = connection.post("/", b"[" + b"1," * (LIMIT // 2) + b"1]")
        assert reply.status == 413
        assert str(LIMIT) in error_of(reply)["error"]["message"]
    still_serving(url)


def test_a_rest_body_over_the_limit_is_413_in_the_rest_error_shape(url: str) -> None:
    # Regression (fresh-user trial): the REST endpoint answered this one error in JSON-RPC's shape.
    with Http(url) as connection:
        reply = connection.post("/tools/add", b'{"a": [' + b"1," * (LIMIT // 2) + b'1], "b": 1}')
        assert reply.status == 413
        assert reply.json == {"error": f"Request body too large: the limit is {LIMIT} bytes (max_request_bytes)"}
        reply = connection.post("/tools/add", b'{"a": 1e400, "b": 1}')
        assert reply.status == 400
        assert "1e400 is too large" in reply.json["error"]
    still_serving(url)


def test_a_declared_length_over_the_limit_is_refused_before_the_body_is_sent(url: str) -> None:
    with socket.create_connection(("127.0.0.1", port_of(url)), timeout=10) as sock:
        sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Expect: 100-continue\r\nContent-Length: 17000000\r\n\r\n")
        head = read_response_head(sock)
    assert head.startswith(b"HTTP/1.1 413 ")
    still_serving(url)


def test_the_default_limit_is_16_mib() -> None:
    with serve(calculator()) as base:
        with socket.create_connection(("127.0.0.1", port_of(base)), timeout=10) as sock:
            sock.sendall(b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                         b"Expect: 100-continue\r\nContent-Length: %d\r\n\r\n" % (16 * 1024 * 1024 + 1))
            assert read_response_head(sock).startswith(b"HTTP/1.1 413 ")
        still_serving(base)


def test_a_huge_chunked_body_is_413_and_the_server_keeps_serving(url: str) -> None:
    chunk = b"x" * 16384
    with socket.create_connection(("127.0.0.1", port_of(url)), timeout=10) as sock:
        sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n")
        sent_error = None
        try:
            for _ in range(2 * LIMIT // len(chunk)):
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            sock.sendall(b"0\r\n\r\n")
        except OSError as exc:  # the server may close as soon as it has answered
            sent_error = exc
        head = read_response_head(sock)
    assert head.startswith(b"HTTP/1.1 413 "), (head, sent_error)
    still_serving(url)


def test_a_small_chunked_body_is_served(url: str) -> None:
    body = b'{"jsonrpc":"2.0","id":"chunked","method":"ping"}'
    with socket.create_connection(("127.0.0.1", port_of(url)), timeout=10) as sock:
        sock.sendall(b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n" % (len(body), body))
        response = HTTPResponse(sock)
        response.begin()
        assert response.status == 200
        assert response.read() == b'{"jsonrpc":"2.0","id":"chunked","result":{}}'


def read_response_head(sock: socket.socket, timeout: float = 10.0) -> bytes:
    """Read until the end of the response head (or EOF), bounded by ``timeout``."""
    sock.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        data += chunk
    return data


# -- connections -----------------------------------------------------------------------------
def test_two_requests_on_one_keep_alive_connection_are_both_answered(http: Http) -> None:
    first = http.rpc("ping", id="one")
    sock = http.conn.sock
    second = http.rpc("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}}, id="two")
    assert http.conn.sock is sock  # the same TCP connection
    assert first.json["result"] == {}
    assert float(second.json["result"]["content"][0]["text"]) == 3
    assert first.header("Connection") != "close"


def test_two_pipelined_requests_are_both_answered(url: str) -> None:
    body = b'{"jsonrpc":"2.0","id":%d,"method":"ping"}'
    request = (b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
               b"Content-Length: %d\r\n\r\n%s")
    with socket.create_connection(("127.0.0.1", port_of(url)), timeout=10) as sock:
        sock.sendall(request % (len(body % 1), body % 1) + request % (len(body % 2), body % 2))
        received = b""
        deadline = time.monotonic() + 10
        while received.count(b"HTTP/1.1 200 ") < 2 or not received.endswith(b"}"):
            assert time.monotonic() < deadline, received
            chunk = sock.recv(65536)
            assert chunk, f"the server closed the connection after {received!r}"
            received += chunk
    assert received.index(b'"id":1,') < received.index(b'"id":2,')
    assert received.count(b'"result":{}') == 2


@pytest.mark.parametrize(("case", "headers", "body"), [
    ("foreign origin", {"Origin": "http://evil.example"}, b'{"jsonrpc":"2.0","id":1,"method":"ping"}'),
    ("body over the limit", {}, b"[" + b"0," * LIMIT + b"0]"),
])
def test_a_connection_the_server_closes_after_an_early_refusal_says_connection_close(
        url: str, case: str, headers: dict[str, str], body: bytes) -> None:
    """An error sent before the body is read ends the connection; the reply must say so
    (RFC 9112 § 9.6), or a keep-alive client's next request on it fails with a reset."""
    with Http(url) as connection:
        refused = connection.post("/", body, headers)
        assert refused.status in (403, 413)
        try:
            ping_works(connection)
        except (ConnectionError, HTTPException):
            assert refused.header("Connection") == "close", (
                f"after the {refused.status} the server closed the connection without 'Connection: close'")


def test_a_client_that_never_sends_its_body_is_timed_out_without_blocking_others(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from nanohubmcp.transports import http_server

    # The production value is 30 s; a shorter one keeps the test quick, the mechanism is the same.
    monkeypatch.setattr(http_server, "BODY_TIMEOUT", 2.0)
    with serve(calculator()) as base:
        stalled = socket.create_connection(("127.0.0.1", port_of(base)), timeout=10)
        stalled.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        b"Content-Length: 100\r\n\r\n")
        outcome: dict[str, Any] = {}

        def wait_for_the_server() -> None:
            started = time.monotonic()
            outcome["head"] = read_response_head(stalled, timeout=15)
            outcome["seconds"] = time.monotonic() - started

        waiter = threading.Thread(target=wait_for_the_server)
        waiter.start()
        try:
            # Meanwhile everybody else is served at once.
            for _ in range(5):
                started = time.monotonic()
                still_serving(base)
                assert time.monotonic() - started < 1.0
            waiter.join(20)
        finally:
            stalled.close()
    assert not waiter.is_alive()
    # The server gave up on the body: 408 Request Timeout, then it closed the connection.
    assert outcome["seconds"] < 10, outcome
    assert outcome["head"].split(b" ")[1] == b"408", outcome


@pytest.mark.parametrize(("method", "path", "allowed"), [
    ("PUT", "/mcp", "GET, POST, DELETE, OPTIONS"),
    ("PATCH", "/", "GET, HEAD, POST, DELETE, OPTIONS"),
    ("PUT", "/tools/add", "POST, OPTIONS"),
    ("PATCH", "/sse", "GET, OPTIONS"),
])
def test_an_unsupported_method_with_a_body_is_405_naming_the_allowed_ones(
        http: Http, method: str, path: str, allowed: str) -> None:
    # Regression (fresh-user trial): with a body, Tornado's own 405 streamed the body into a
    # handler that had not set itself up for one; the connection dropped with no reply at all.
    reply = http.request(method, path, {"jsonrpc": "2.0", "id": 1, "method": "ping"},
                         {"Content-Type": "application/json"})
    assert reply.status == 405
    assert reply.header("Allow") == allowed  # RFC 9110 § 15.5.6
    assert reply.json == {"error": f"Method Not Allowed: {path} takes {allowed}"}
    # A CORS preflight on the same path names the same methods.
    preflight = http.request("OPTIONS", path, None, {"Origin": "http://localhost:3000",
                                                     "Access-Control-Request-Method": "POST"})
    assert preflight.status == 204
    assert preflight.header("Access-Control-Allow-Methods") == allowed
    ping_works(http)
