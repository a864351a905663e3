"""A POST's ``Content-Type`` and ``Accept`` are judged once per pair of values (a keep-alive client
sends the same two on every request), with the same verdicts as judging them each time, and the
pairs kept are bounded (they are client input).

Source: MCP 2025-11-25, Transports § Streamable HTTP (the client's Accept lists application/json
and text/event-stream); RFC 9110 § 12.5.1 (Accept), § 8.3 (Content-Type).
"""

from __future__ import annotations

import pytest

from nanohubmcp.transports import streamable_http
from nanohubmcp.transports.headers import accepts, json_body_type, wants_sse
from nanohubmcp.transports.streamable_http import MAX_HEADER_PAIRS, post_headers

CONTENT_TYPES = [None, "", "application/json", "application/json; charset=utf-8", "Application/JSON",
                 "application/vnd.api+json", "text/plain", "application/x-www-form-urlencoded"]
ACCEPTS = [None, "", "*/*", "application/json", "text/event-stream", "application/json, text/event-stream",
           "application/*", "text/*", "text/html", "image/png, text/html;q=0.9", "TEXT/EVENT-STREAM"]


@pytest.mark.parametrize("content_type", CONTENT_TYPES)
@pytest.mark.parametrize("accept", ACCEPTS)
def test_the_verdicts_are_those_of_each_check(content_type: str | None, accept: str | None) -> None:
    expected = (json_body_type(content_type),
                accepts(accept, "application/json") or accepts(accept, "text/event-stream"), wants_sse(accept))
    assert post_headers(content_type, accept) == expected
    assert post_headers(content_type, accept) == expected  # the kept answer, the second time


def test_the_pairs_kept_are_bounded() -> None:
    for i in range(MAX_HEADER_PAIRS * 3):
        assert post_headers("application/json", f"application/json, x/{i}") == (True, True, False)
        assert len(streamable_http._POST_HEADERS) <= MAX_HEADER_PAIRS
