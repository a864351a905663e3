"""One map from error to HTTP status (``errors.http_status_for`` / ``http_status_of``): the JSON-RPC
routes of both eras and REST read their statuses from it, and each refusal at the HTTP edge is an
exception naming its own status, never a number written at the call site."""

from __future__ import annotations

import re

import pytest

from nanohubmcp import errors
from nanohubmcp.errors import HANDSHAKE_ROUTE, MODERN_ROUTE, REST_ROUTE, http_status_for, http_status_of


@pytest.mark.parametrize(
    ("code", "handshake", "modern", "rest"),
    [
        (errors.PARSE_ERROR, 400, 400, 400),
        (errors.INVALID_REQUEST, 400, 400, 400),
        (errors.METHOD_NOT_FOUND, 200, 404, 500),
        (errors.INVALID_PARAMS, 200, 200, 400),
        (errors.INTERNAL_ERROR, 200, 200, 500),
        (errors.RESOURCE_NOT_FOUND, 200, 200, 404),
        (errors.SERVER_BUSY, 503, 503, 503),
        (errors.FORBIDDEN, 403, 403, 403),
        (errors.HEADER_MISMATCH, 400, 400, 400),
        (errors.MISSING_CLIENT_CAPABILITY, 400, 400, 400),
        (errors.UNSUPPORTED_PROTOCOL_VERSION, 400, 400, 400),
        # A code of the server's or the application's own (a middleware's deliberate refusal): 403 over REST,
        # a refusal the client caused rather than a server fault (trial11 F10); JSON-RPC's own unknown codes 500.
        (errors.REFUSED, 200, 200, 403),  # a bare ProtocolError's code (trial19 F9)
        (-32050, 200, 200, 403),
        (-32001, 200, 200, 403),
        (-32099, 200, 200, 403),
        (42, 200, 200, 403),
        (-40000, 200, 200, 403),
        (-32100, 200, 200, 500),
        (-32500, 200, 200, 500),
    ],
)
def test_each_code_has_one_status_per_route(code: int, handshake: int, modern: int, rest: int) -> None:
    error = {"code": code, "message": "m"}
    assert (http_status_for(error, HANDSHAKE_ROUTE), http_status_for(error, MODERN_ROUTE),
            http_status_for(error, REST_ROUTE)) == (handshake, modern, rest)


@pytest.mark.parametrize(
    ("refusal", "status"),
    [
        (errors.Unauthorized, 401),
        (errors.ForbiddenOrigin, 403),
        (errors.SessionNotFound, 404),
        (errors.RouteNotFound, 404),
        (errors.UnknownTool, 404),
        (errors.MethodNotAllowed, 405),
        (errors.NotAcceptable, 406),
        (errors.StreamConflict, 409),
        (errors.RequestTooLarge, 413),
        (errors.UnsupportedMediaType, 415),
        (errors.MisdirectedRequest, 421),
        (errors.InvalidEnvelope, 400),
    ],
)
def test_each_edge_refusal_names_its_status(refusal: type[errors.ProtocolError], status: int) -> None:
    assert http_status_of(refusal("m")) == status
    assert http_status_of(refusal("m"), REST_ROUTE) == status


def test_a_refusal_at_the_edge_is_never_answered_200() -> None:
    # -32602 of a handler travels with 200; the same code refusing a request at the edge is a 400.
    assert http_status_of(errors.InvalidParams("m")) == 400
    assert http_status_of(errors.ServerBusy("m", retry_after=5)) == 503
    assert http_status_of(errors.InsufficientScope("m", scopes=["a"])) == 403


def test_the_request_id_is_part_of_the_error_not_patched_on() -> None:
    refused = errors.SessionNotFound("gone", request_id=7)
    assert errors.error_response(refused, refused.request_id)["id"] == 7
    assert errors.InvalidRequest("m").request_id is None


ROWS = {  # the middleware page's "Refusals over HTTP" rows, by how each begins: codes that row covers
    "`-32602`": [-32602],
    "`-32002`": [-32002],
    "`-32000`": [-32000],
    "`-32003`": [-32003],
    "any other code of your own": [-32099, -32050, -32004, -32001, 42, 12345, -40000],
    "`-32603`": [-32603, -32100, -32768],
}


def test_the_middleware_table_and_the_docstring_say_what_the_map_does() -> None:
    """Trial19 F12: the docstring said REST answers "any other failure" 500, where the middleware page (and the
    map) give 403 for a code of the application's own."""
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "how-to" / "middleware.md").read_text()
    table = page.split("## Refusals over HTTP", 1)[1].split("\n\n", 2)[1:]
    rows = [line for line in "\n\n".join(table).splitlines() if line.startswith("| ") and "---" not in line][1:]
    seen = set()
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        (start,) = [key for key in ROWS if cells[0].startswith(key)]
        seen.add(start)
        for code in ROWS[start]:
            error = {"code": code, "message": "m"}
            stated = (int(cells[1].split()[0]), int(cells[2].split()[0]))
            assert (http_status_for(error, HANDSHAKE_ROUTE), http_status_for(error, REST_ROUTE)) == stated, row
    assert seen == set(ROWS)
    doc = " ".join((http_status_for.__doc__ or "").split())
    assert re.search(r"REST[^.]*own[^.]*\b403\b", doc), doc  # the REST sentence names 403 for a code of one's own
    assert "any other failure 500" not in doc
