"""The answers a request's limits give before any handler runs (:mod:`.http_server`): a JSON-RPC error body
saying the limit, with ``Connection: close``.

Source: RFC 6585 § 5 (431); RFC 9110 § 15.5.9 (408).
"""

from __future__ import annotations

from tornado import httputil

from ..errors import InvalidRequest, error_response
from ..protocol import jsonenc


def answer_and_close(connection: httputil.HTTPConnection, status: int, reason: str, problem: str) -> None:
    """Answer ``status`` (``reason``) on ``connection`` with the error ``"<reason>: <problem>"`` and close it once
    the answer is written (``Connection: close``)."""
    body = jsonenc.dumpb(error_response(InvalidRequest(f"{reason}: {problem}")))
    reply = httputil.HTTPHeaders({"Content-Type": "application/json", "Content-Length": str(len(body)),
                                  "Connection": "close"})
    connection.write_headers(httputil.ResponseStartLine("HTTP/1.1", status, reason), reply, body)
    connection.finish()
