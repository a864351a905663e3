"""A client's ``notifications/cancelled`` that reaches a process of the server before the call it names started there
(its POST still on its way, held here by the test sending its body's last byte late) ends the call as it starts: it
never runs, and its POST is answered as a cancelled request is (no result).

The cancel, relayed through Redis to the process the POST goes to, found no call running there and was dropped (a
cancel sent to that process itself was published for the others alone): the call then ran to its end. Now a process
keeps such a cancel a minute (:mod:`nanohubmcp.server.wire.early_cancels`) and a call starting looks for one in
memory (no round trip). A cancel sent while that process's subscription was down is read, with every kept cancel,
when the subscription is made again (they were read for the calls running then alone).
"""

from __future__ import annotations

import json
import logging
import socket
from urllib.parse import urlsplit

import pytest
import redis
import wire
from counting import add_count
from deaf_subscription import own_user_url, subscription_down
from redis_server import RedisServer
from support import serve, wait_until

from nanohubmcp import MCPServer

pytestmark = pytest.mark.timeout(90)

NAME = "early-cancel"
KEPT = "a cancel of request 7, not running here, kept for it to start"


def build(state_url: str, ends: list[str]) -> MCPServer:
    server = MCPServer(NAME, state_url=state_url)

    add_count(server, ends, starts=ends)
    return server


class HeldPost:
    """A POST of a ``tools/call`` whose body's last byte is sent only when :meth:`release` is called."""

    def __init__(self, base: str, session: str, request_id: int) -> None:
        body = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                           "params": {"name": "count", "arguments": {}}}).encode()
        parts = urlsplit(base)
        head = "".join(f"{name}: {value}\r\n" for name, value in wire.headers(session).items())
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
        self.sock.sendall(f"POST {parts.path}mcp HTTP/1.1\r\nHost: {parts.netloc}\r\nContent-Type: application/json\r\n"
                          f"Content-Length: {len(body)}\r\n{head}Connection: close\r\n\r\n".encode() + body[:-1])
        self.last = body[-1:]

    def release(self) -> str:
        """Send the last byte; the whole response (the server closes the connection)."""
        self.sock.sendall(self.last)
        received = b""
        while chunk := self.sock.recv(65536):
            received += chunk
        return received.decode()

    def close(self) -> None:
        self.sock.close()


def assert_withdrawn(response: str) -> None:
    status = response.split("\r\n", 1)[0]
    assert " 200 " in status, response
    assert '"result"' not in response, f"the call ran: {response}"


@pytest.mark.parametrize("where", ["another process", "the same process"])
def test_a_cancel_sent_before_the_call_started_ends_it_unrun(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture, where: str
) -> None:
    caplog.set_level(logging.DEBUG, logger="nanohubmcp.state")
    admin = redis.Redis.from_url(redis_server.url, decode_responses=True, socket_timeout=10)
    ends: list[str] = []
    with serve(build(redis_server.url, ends)) as running, serve(build(redis_server.url, [])) as other:
        session = wire.initialize(running + "mcp")
        held = HeldPost(running, session, 7)
        try:
            cancelling = other if where == "another process" else running
            wire.notify(cancelling + "mcp", session, "notifications/cancelled", {"requestId": 7, "reason": "stop"})
            wait_until(lambda: admin.keys(f"nanohubmcp:{NAME}:cxk*"), "the cancel kept in Redis")
            if where == "another process":  # (the same process kept it before answering the notification)
                wait_until(lambda: KEPT in caplog.text, "the cancel heard by the process the POST goes to", 10)
            assert_withdrawn(held.release())
        finally:
            held.close()
    assert ends == [], f"the call started: {ends}"


def test_a_cancel_sent_while_the_subscription_was_down_ends_the_call_started_after(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="nanohubmcp.state")
    admin = redis.Redis.from_url(redis_server.url, decode_responses=True, socket_timeout=10)
    ends: list[str] = []
    with serve(build(own_user_url(admin, redis_server.url, "late"), ends)) as running, \
            serve(build(redis_server.url, [])) as other:
        session = wire.initialize(running + "mcp")
        held = HeldPost(running, session, 7)
        try:
            with subscription_down(admin, "late"):
                wire.notify(other + "mcp", session, "notifications/cancelled", {"requestId": 7, "reason": "stop"})
                assert KEPT not in caplog.text  # (heard by nobody)
            wait_until(lambda: KEPT in caplog.text, "the kept cancel read once the subscription is made again", 10)
            assert_withdrawn(held.release())
        finally:
            held.close()
    assert ends == [], f"the call started: {ends}"
