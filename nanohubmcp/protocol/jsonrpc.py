"""JSON-RPC 2.0 envelopes: parsing, classification, and building replies.

A body parses to one :class:`Message` or a list of them (a batch). Envelope mistakes raise
:class:`~nanohubmcp.errors.InvalidRequest` with a message that says what to fix; the id is
kept on the exception when it could be read, so the error reply can carry it.

Source: JSON-RPC 2.0 specification §§ 4-6; MCP 2025-11-25, Basic § Messages (ids MUST be a
string or integer, MUST NOT be null).
"""

from __future__ import annotations

from typing import Any, Final, TypeGuard

from ..errors import InvalidParams, InvalidRequest, ParseError
from . import jsondec, long_ints, nesting

REQUEST = "request"
NOTIFICATION = "notification"
RESPONSE = "response"


class Message:
    """One JSON-RPC message.

    What ``@dataclass(slots=True)`` made of it, written out (the same ``__init__``, ``==``, ``repr``
    and slots): every server imports this module before its first answer, and a slotted dataclass
    compiles its methods and builds its class twice at import.

    Attributes:
        kind: ``"request"``, ``"notification"`` or ``"response"``.
        method: method name (requests and notifications).
        id: request or response id (str or int).
        params: the params object (``{}`` when absent).
        raw: the parsed object as received.
    """

    __slots__ = ("id", "kind", "method", "params", "raw")
    __match_args__ = ("kind", "raw", "method", "id", "params")

    def __init__(
        self,
        kind: str,
        raw: dict[str, Any],
        method: str | None = None,
        id: str | int | None = None,
        params: dict[str, Any] | None = None,
    ) -> None:
        self.kind = kind
        self.raw = raw
        self.method = method
        self.id = id
        self.params = params

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Message)
        return (self.kind, self.raw, self.method, self.id, self.params) == (
            other.kind, other.raw, other.method, other.id, other.params)

    __hash__ = None  # type: ignore[assignment]  # mutable and compared by value: unhashable

    def __repr__(self) -> str:
        return (f"Message(kind={self.kind!r}, raw={self.raw!r}, method={self.method!r}, id={self.id!r}, "
                f"params={self.params!r})")

    @property
    def meta(self) -> dict[str, Any]:
        """``params._meta`` as a dict (empty when absent or not an object)."""
        meta = (self.params or {}).get("_meta")
        return meta if isinstance(meta, dict) else {}


class EnvelopeError(InvalidRequest):
    """An invalid envelope, remembering the id when one could be read."""

    def __init__(self, message: str, request_id: object = None) -> None:
        super().__init__(message, request_id=request_id if valid_id(request_id) else None)


def valid_id(value: object) -> TypeGuard[str | int]:
    """True for a JSON-RPC id MCP allows: a string or an integer (never ``true``, ``1.0``, null or
    an array; ``True == 1`` in Python, so a raw lookup would confuse them)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def json_kind(value: object) -> str:
    """What a decoded JSON value is, in JSON's words (for messages): a number with a fractional part is named
    with its value (``the number 2025.1125``; JSON has no fractions)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, float):
        return f"the number {value!r}" if not value.is_integer() else "a number written with a fraction or exponent"
    names: dict[type, str] = {dict: "an object", list: "an array", str: "a string", int: "an integer"}
    return names.get(type(value), type(value).__name__)


MAX_JSON_DEPTH: Final = nesting.MAX_JSON_DEPTH
"""Arrays and objects a client's JSON body may nest, at most (128; the message's own levels count:
a ``tools/call``'s arguments are three levels in). Deeper bodies are refused when parsed, so
every recursive helper downstream (cache keys, result copies) has room to spare on Python's stack.
A tool's result is held to the same limit (its own levels: ``server.results``)."""


def parse_body(body: bytes | str, *, large: bool = False) -> Any:
    """Decode a request body to Python objects.

    ``large``: the body is parsed on a worker thread (one of 1 MiB or more): read with orjson when it
    is installed and reads the body alike (``protocol.large_json``); the value and every error are
    the same either way.

    Raises:
        ParseError: the body is empty, not UTF-8, not strict JSON, nested more than
            :data:`MAX_JSON_DEPTH` levels deep, or holds an integer of more than 4,300 digits
            (``protocol.long_ints``; whatever ``PYTHONINTMAXSTRDIGITS`` says).

    .. versionchanged:: 1.0
       ``large=True`` reads the body with orjson when installed. An integer of more than 4,300 digits is
       refused with ``PYTHONINTMAXSTRDIGITS=0`` too (it was parsed, in time growing with the square of its
       digits).
    """
    if not body:
        raise ParseError("Parse error: the request body is empty; send one JSON-RPC message")
    try:
        # (a body of 2 * MAX_JSON_DEPTH characters can neither nest deeper nor hold a long integer: most calls
        # skip both looks)
        if len(body) > 2 * MAX_JSON_DEPTH:
            if nesting.nested_deeper_than(body, MAX_JSON_DEPTH):
                raise ParseError(f"Parse error: the JSON is nested more than {MAX_JSON_DEPTH} levels deep "
                                 "(arrays and objects, the message's own included)")
            if len(body) > long_ints.MAX_DIGITS and long_ints.unguarded(body):  # (Python's own limit lifted)
                return jsondec.loads_bounded(body)
        if large:  # (loaded with the first body of 1 MiB or more, on its worker thread: a first answer has none)
            from .large_json import loads_large

            return loads_large(body)
        return jsondec.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        if isinstance(exc, long_ints.LongInteger) or "integer string conversion" in str(exc):  # (Python's own)
            raise ParseError(f"Parse error: a number has more than {long_ints.digits_allowed()} digits; "
                             "send it as a string") from None
        raise ParseError(f"Parse error: {exc}") from None
    except RecursionError:  # (not reached: nested_deeper_than refused it first)
        raise ParseError(f"Parse error: the JSON is nested more than {MAX_JSON_DEPTH} levels deep") from None


def classify(obj: object) -> Message:
    """Turn one decoded JSON value into a :class:`Message`.

    Raises:
        EnvelopeError: not an object, wrong ``jsonrpc``, bad id (or one over :data:`MAX_ID_CHARS`),
            missing method.
        InvalidParams: ``params`` present but not an object (MCP uses named params only); a request's
            ``_meta.progressToken`` over :data:`MAX_ID_CHARS`, or neither a string nor an integer (an object,
            array, bool or float; null is no token) (a notification's is not looked at: nothing
            sends it back or keeps it, and JSON-RPC answers no notification).

    .. versionchanged:: 1.0
       Ids and request progress tokens over :data:`MAX_ID_CHARS` are refused; a notification with a longer
       token is served (it was answered with an error, which JSON-RPC never sends for a notification).
       A request's progress token of another type than MCP's ``string | integer`` is refused (was
       accepted silently).
    """
    if not isinstance(obj, dict):
        raise EnvelopeError("Invalid Request: a JSON-RPC message must be a JSON object")
    rid = obj.get("id")
    if obj.get("jsonrpc") != "2.0":
        raise EnvelopeError('Invalid Request: "jsonrpc" must be exactly "2.0"', _id_or_none(rid))
    has_id = "id" in obj
    # an int or a str id is valid without a call (bool is a subclass of int, never its type)
    if has_id and type(rid) is not int and type(rid) is not str and not valid_id(rid):
        raise EnvelopeError(f'Invalid Request: "id" must be a string or an integer, not {json_kind(rid)}')
    # (the usual id, a short string or a small int, answered without over_long's call)
    if has_id and not (type(rid) is str and len(rid) <= MAX_ID_CHARS) and \
            not (type(rid) is int and -_INT_BOUND < rid < _INT_BOUND) and over_long(rid):
        raise EnvelopeError(f'Invalid Request: "id" is {_length(rid)}; an id is at most {MAX_ID_CHARS} '
                            'characters: send a shorter one (a number or a short string)')
    method = obj.get("method", _ABSENT)
    if method is not _ABSENT:
        if (type(method) is not str and not isinstance(method, str)) or not method:
            raise EnvelopeError('Invalid Request: "method" must be a non-empty string', _id_or_none(rid))
        params = obj.get("params")
        if params is None:  # absent or null: no params
            params = {}
        elif type(params) is not dict and not isinstance(params, dict):
            raise InvalidParams('Invalid params: "params" must be an object', request_id=_id_or_none(rid))
        meta = params.get("_meta")
        # (a notification's token is not checked: it is never repeated, and a notification is never answered)
        if has_id and meta and type(meta) is dict and (token := meta.get("progressToken")) is not None and \
                not valid_id(token):
            raise InvalidParams(f'Invalid params: "params._meta.progressToken" must be a string or an integer '
                                f'(MCP ProgressToken), not {json_kind(token)}', request_id=_id_or_none(rid))
        if has_id and meta and type(meta) is dict and over_long(token := meta.get("progressToken")):
            raise InvalidParams(f'Invalid params: "params._meta.progressToken" is {_length(token)}; a progress '
                                f'token is at most {MAX_ID_CHARS} characters: send a shorter one (a number or '
                                'a short string)', request_id=_id_or_none(rid))
        if has_id:
            return Message(REQUEST, obj, method, rid, params)
        return Message(NOTIFICATION, obj, method, None, params)
    if has_id and ("result" in obj or "error" in obj):
        return Message(RESPONSE, obj, id=rid)
    raise EnvelopeError('Invalid Request: a message needs "method" (request) or "result"/"error" (response)',
                        _id_or_none(rid))


_ABSENT: Any = object()


def _id_or_none(value: object) -> Any:
    return value if valid_id(value) and not over_long(value) else None


MAX_ID_CHARS: Final = 256
"""Characters a request's ``id`` and its ``params._meta.progressToken`` may have, at most (an
integer: digits). Both are repeated in what the server sends back (every progress notification
carries the token, the answer its id) and kept in resumable streams' event logs, in Redis too when
the server is scaled out, so an unbounded one would let a client make the server hold its text
hundreds of times. A longer id is an invalid request (-32600), a longer token invalid params (-32602)."""

_INT_BOUND: Final = 10**MAX_ID_CHARS


def over_long(value: object) -> bool:
    """Whether ``value`` is a string of over :data:`MAX_ID_CHARS` characters or an integer of over
    as many digits (anything else: False)."""
    if type(value) is str or isinstance(value, str):
        return len(value) > MAX_ID_CHARS
    return isinstance(value, int) and not isinstance(value, bool) and not -_INT_BOUND < value < _INT_BOUND


def _length(value: Any) -> str:
    """How long an :func:`over_long` ``value`` is, in words."""
    if isinstance(value, str):
        return f"a string of {len(value)} characters"
    return f"an integer of {len(str(abs(value)))} digits"


def error(request_id: object, err: dict[str, Any]) -> dict[str, Any]:
    """Build an error response from an ``{code, message, data?}`` object."""
    return {"jsonrpc": "2.0", "id": request_id, "error": err}


def notification(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """Build a notification."""
    msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def request(request_id: object, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """Build a request (server→client)."""
    msg: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        msg["params"] = params
    return msg
