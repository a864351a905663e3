"""Calls abandoned at ``tool_timeout`` are capped (``max_stuck_calls``); past the cap new calls are refused at once.

A trial (three rounds of 20 calls of a sync tool that outlives ``tool_timeout``) grew the process from 9 to 67
threads: every timed-out call left its function running on a thread of its own, with no cap a caller could see or
set. Now, with ``max_stuck_calls`` calls stuck, a new call of a sync tool is refused at once as busy (REST 503 with
``Retry-After``, an ``isError`` result over MCP whose ``_meta`` says when to retry), saying why; a stuck call that
returns frees its place.
"""

from __future__ import annotations

import threading

from json_posts import post_json_with_headers
from support import call_tool_http, serve, wait_until

from nanohubmcp import MCPServer


def test_past_max_stuck_calls_new_calls_are_refused_at_once_until_a_stuck_one_returns() -> None:
    release = threading.Event()
    server = MCPServer("stuck-cap", workers=1, tool_timeout=0.5, max_stuck_calls=2)

    @server.tool()
    def hang(wait: bool = True) -> str:
        """Block until the test releases it (a solver that never converges), unless told not to."""
        if wait:
            release.wait(60)
        return "returned"

    with serve(server) as base:
        try:
            for _ in range(2):  # each times out, and its function runs on, abandoned
                status, _, body = post_json_with_headers(base + "tools/hang", {})
                assert status == 504, body  # a timeout: 504, not a server fault (trial51 F15)
                assert "abandoned" in body["error"]
            assert server.core.stuck_calls == 2

            # would return at once, but is not run
            status, headers, body = post_json_with_headers(base + "tools/hang", {"wait": False})
            assert status == 503, body
            assert int(headers["Retry-After"]) >= 1
            assert "max_stuck_calls=2" in body["error"]
            assert "2 calls abandoned at tool_timeout are still running" in body["error"]

            result = call_tool_http(base, "hang", {"wait": False})  # the same refusal over MCP
            assert result["isError"] is True
            assert "max_stuck_calls=2" in result["content"][0]["text"]
            assert result["_meta"]["io.nanohub/retryAfter"] >= 1  # the product's prefix, as io.nanohub/provenance
            assert server.core.stuck_calls == 2  # nothing else was abandoned (nor run)
        finally:
            release.set()
        wait_until(lambda: server.core.stuck_calls == 0, "the stuck calls returned and freed their places", 20)
        status, _, body = post_json_with_headers(base + "tools/hang", {"wait": False})
        assert (status, body) == (200, {"result": "returned"})
