"""A JSON POST to a served route (a tool's REST route ``/tools/<name>``, or ``/mcp``), as the README's ``curl`` lines
send one: its HTTP status and its decoded JSON answer, an error status included (for the tests of what a route
answers, not of a client); :func:`post_json_with_headers` adds the response's headers (a 429's ``Retry-After``)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any


def post_json(url: str, body: Any, timeout: float = 30.0, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    """POST ``body`` as JSON to ``url`` (``Content-Type: application/json`` and ``headers``), waiting at most
    ``timeout`` seconds; returns (status, decoded JSON body), a 4xx or 5xx answer as well as a 2xx one."""
    status, _, answer = post_json_with_headers(url, body, timeout, headers)
    return status, answer


def post_json_with_headers(url: str, body: Any, timeout: float = 30.0,
                           headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], Any]:
    """As :func:`post_json`; returns (status, the response's headers, decoded JSON body)."""
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, dict(response.headers), json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), json.loads(exc.read())
