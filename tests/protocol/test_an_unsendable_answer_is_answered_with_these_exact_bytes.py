"""The stand-ins :func:`nanohubmcp.protocol.sendable.message_parts` writes for a response JSON cannot hold
are pinned byte for byte: a result becomes -32603 with its fixed text, an error keeps its code and message
without its data. (Built through the one error map since review r42's R42-4; the bytes a client reads did
not change.)"""

from __future__ import annotations

from nanohubmcp.protocol import jsonenc
from nanohubmcp.protocol.sendable import message_parts


def test_a_result_json_cannot_hold_is_this_internal_error() -> None:
    parts = message_parts({"jsonrpc": "2.0", "id": 7, "result": {"x": {1, 2}}}, middleware=True)
    assert jsonenc.joined(parts) == (
        b'{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"Internal error: the result could not be '
        b'written as JSON; see the server log"}}')


def test_an_error_whose_data_json_cannot_hold_keeps_its_code_and_message() -> None:
    message = {"jsonrpc": "2.0", "id": "a", "error": {"code": -32042, "message": "no", "data": {object()}}}
    parts = message_parts(message, middleware=False)
    assert jsonenc.joined(parts) == b'{"jsonrpc":"2.0","id":"a","error":{"code":-32042,"message":"no"}}'
