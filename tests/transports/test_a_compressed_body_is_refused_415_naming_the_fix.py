"""A POST body sent with ``Content-Encoding`` (gzip, deflate, br) is refused 415 with ``Accept-Encoding:
identity`` and a message saying to send it uncompressed (RFC 9110 § 15.5.16), on every route that reads a
body: the MCP endpoint, ``POST /``, the legacy SSE POST route and REST. A fresh-user trial got a parse error
about a byte 0x8b that did not say why. Bodies are never decompressed (a small body could stand for far
more than ``max_request_bytes``); ``identity`` is no coding at all.
"""

from __future__ import annotations

import gzip
import json
import zlib

import pytest
from raw_http import JSON_HEADERS, Http
from support import rpc_message, serve

from nanohubmcp import MCPServer

PING = json.dumps(rpc_message("ping")).encode()
CODED = {"gzip": gzip.compress(PING), "deflate": zlib.compress(PING), "br": b"\x1b\x1d\x00\xf8\xa5@\x02"}
FIX = "this server reads request bodies uncompressed only: send the body uncompressed, without Content-Encoding"


def build() -> MCPServer:
    server = MCPServer("coded")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    return server


@pytest.mark.parametrize("coding", sorted(CODED))
@pytest.mark.parametrize("path", ["/mcp", "/", "/messages/?session_id=any"])
def test_a_json_rpc_route_answers_415_with_a_json_rpc_error(path: str, coding: str) -> None:
    with serve(build()) as base:
        reply = Http(base).request("POST", path, CODED[coding], {**JSON_HEADERS, "Content-Encoding": coding})
        assert reply.status == 415, reply.raw
        assert reply.header("Accept-Encoding") == "identity"
        assert reply.json["error"]["code"] == -32600
        assert reply.json["error"]["message"] == (
            f"Unsupported Media Type: the body was sent with 'Content-Encoding: {coding}'; {FIX}")


def test_rest_answers_415_with_its_own_error_body() -> None:
    with serve(build()) as base:
        body = gzip.compress(b'{"a": 1, "b": 2}')
        reply = Http(base).request("POST", "/tools/add", body, {**JSON_HEADERS, "Content-Encoding": "gzip"})
        assert reply.status == 415, reply.raw
        assert reply.header("Accept-Encoding") == "identity"
        message = f"Unsupported Media Type: the body was sent with 'Content-Encoding: gzip'; {FIX}"
        assert reply.json == {"error": message}


def test_a_chunked_compressed_body_is_refused_too() -> None:
    with serve(build()) as base:
        http = Http(base)
        http.conn.putrequest("POST", "/mcp")
        for name, value in {**JSON_HEADERS, "Content-Encoding": "gzip", "Transfer-Encoding": "chunked"}.items():
            http.conn.putheader(name, value)
        http.conn.endheaders()
        body = CODED["gzip"]
        http.conn.send(b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body))
        reply = http.conn.getresponse()
        assert reply.status == 415
        assert "send the body uncompressed" in json.loads(reply.read())["error"]["message"]


def test_a_list_of_codings_names_all_but_identity() -> None:
    with serve(build()) as base:
        reply = Http(base).request("POST", "/mcp", PING, {**JSON_HEADERS, "Content-Encoding": "identity, br , GZIP"})
        assert reply.status == 415
        assert "'Content-Encoding: br, gzip'" in reply.json["error"]["message"]


@pytest.mark.parametrize("coding", ["identity", "Identity", ""])
def test_identity_is_no_coding(coding: str) -> None:
    with serve(build()) as base:
        reply = Http(base).request("POST", "/mcp", PING, {**JSON_HEADERS, "Content-Encoding": coding})
        assert (reply.status, reply.json["result"]) == (200, {})
