"""Multi round-trip requests (MRTR): how a 2026-07-28 call asks the client for input.

In the stateless era the server never sends a request of its own. When a tool, prompt or
resource function asks for input (``ctx.elicit``, ``ctx.sample``, ``ctx.list_roots``,
``ctx.ask``) and the answer is not in the request yet, the call stops with
:class:`InputRequired`; the handler answers ``{resultType: "input_required", inputRequests,
requestState}``. The client fulfils the requests and retries with ``inputResponses`` and the
echoed ``requestState``; the function runs again from the start and this time finds its
answers (by key), so functions need no code change between eras.

An :class:`Exchange` holds one request's MRTR inputs: the answers of earlier rounds (from the
verified ``requestState``), this round's ``inputResponses``, and the answers the run consumed,
which the next ``requestState`` carries forward.

An answer is applied only to the input request it answered. The ``requestState`` (bound to the
caller and the request) names every input request the server issued in the call by key and a
digest of its method and params; an answer under such a key — given in this round or carried from
an earlier one — counts only when the function asks the very same request again (a question whose
text or schema changed meanwhile, say "delete 5 files?" where it was "delete 3 files?", is asked
anew). ``requestState`` is optional in the spec: a client may answer ahead, on a first call or for
a key not issued yet (SEP-2322 asks servers to use such answers and ignore keys they do not know);
such an answer fills the request the function makes under its key, checked against it like any
answer (its method's result shape; for a form, the requested schema).

Source: MCP 2026-07-28, Basic § Patterns § Multi Round-Trip Requests; Server § Tools,
Prompts, Resources (``inputResponses``/``requestState`` params).
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from ...errors import InvalidParams
from ...protocol.client_answers import ELICIT, ROOTS, SAMPLE, answer_problem
from ...protocol.message_values import show
from ..wire.request import RequestContext, Slot
from .request_state import Binding, RequestStateCodec, arguments_digest, arguments_digest_stepwise, request_digest

KEY_PREFIX = {ELICIT: "elicitation", SAMPLE: "sampling", ROOTS: "roots"}
"""Prefix of the keys given to input requests that the function did not name itself."""


class InputRequired(BaseException):
    """Raised inside a function when the client must answer ``requests`` before it can go on.

    A control-flow signal, not an error: it derives from ``BaseException`` (as
    ``asyncio.CancelledError`` does) so that a function's own ``except Exception`` cannot
    swallow it, and the request handler turns it into an ``input_required`` result.

    Attributes:
        requests: ``{key: {"method": ..., "params": {...}}}`` still unanswered.
    """

    def __init__(self, requests: dict[str, dict[str, Any]]) -> None:
        super().__init__(f"input required: {', '.join(requests)}")
        self.requests = requests


def check_response(key: str, method: str, value: object, params: object = None) -> Any:
    """Return ``value`` when it is a well-formed result for ``method`` (asked with ``params``).

    Raises:
        InvalidParams: -32602 naming the key and what is wrong with the answer
            (``protocol.client_answers``: the same check as the handshake era's answers).
    """
    problem = answer_problem(method, value, params if isinstance(params, dict) else None)
    if problem is not None:
        raise InvalidParams(f"Invalid inputResponses[{show(key)}]: {problem}")
    return value


class Exchange:
    """The MRTR inputs of one request and the answers its function consumed."""

    def __init__(self, codec: RequestStateCodec, binding: Binding, earlier: dict[str, Any],
                 responses: dict[str, Any], issued: dict[str, str] | None = None) -> None:
        self._codec = codec
        self.binding = binding
        self._earlier = earlier
        self._responses = responses
        self._issued = issued or {}
        self.used: dict[str, Any] = {}
        self._answered: dict[str, str] = {}
        self._counters: dict[str, int] = {}
        self._lock = threading.Lock()

    def next_key(self, method: str) -> str:
        """A key for an unnamed input request: ``elicitation_1``, ``sampling_1``, ... in call order."""
        prefix = KEY_PREFIX.get(method, "input")
        with self._lock:
            count = self._counters.get(prefix, 0) + 1
            self._counters[prefix] = count
        return f"{prefix}_{count}"

    def lookup(self, key: str, method: str, params: object = None) -> tuple[bool, Any]:
        """``(True, answer)`` when the client answered the request ``key`` asks now (``method``
        with ``params``), in this round or an earlier one; ``(False, None)`` when it did not, or
        answered another request under ``key`` (module docstring).

        Raises:
            InvalidParams: the answer given for ``key`` is not a result of ``method``.
        """
        digest = request_digest(method, params or {})
        issued = self._issued.get(key)
        if issued is not None and issued != digest:
            return False, None  # answers under this key answered another request
        if key in self._earlier and issued is not None:
            value = self._earlier[key]
        elif key in self._responses:
            value = check_response(key, method, self._responses[key], params)
        else:
            return False, None
        with self._lock:
            self.used[key] = value
            self._answered[key] = digest
        return True, value

    def input_required(self, signal: InputRequired) -> dict[str, Any]:
        """The ``input_required`` result for ``signal``, with a fresh signed ``requestState``."""
        with self._lock:
            answers, issued = dict(self.used), dict(self._answered)
        for key, body in signal.requests.items():
            issued[key] = request_digest(str(body.get("method")), body.get("params") or {})
        return {
            "resultType": "input_required",
            "inputRequests": signal.requests,
            "requestState": self._codec.issue(self.binding, answers, issued),
        }


EXCHANGE: Slot[Exchange] = Slot("exchange")
"""The multi round-trip state of a 2026-07-28 call (the answers its retry carried, the
input requests it asks), once :func:`begin` made it."""


def begin(codec: RequestStateCodec, request: RequestContext, method: str, name: str,
          arguments: object, params: dict[str, Any], digest: str | None = None) -> Exchange:
    """Read ``inputResponses``/``requestState`` of a retried request and attach its :class:`Exchange`.
    ``digest``: :func:`~.request_state.arguments_digest` of ``arguments``, when the caller made it
    already (a large message's, on a worker thread: :func:`begin_large`).

    Raises:
        InvalidParams: ``inputResponses`` is present but not an object, or ``requestState``
            fails verification (see :class:`~.request_state.RequestStateCodec`).
    """
    principal = request.principal
    if digest is None:
        digest = arguments_digest(arguments)
    binding = Binding(method, name, digest, principal.subject if principal is not None else "")
    responses: Any = params.get("inputResponses", {})
    if not isinstance(responses, dict):
        raise InvalidParams("Invalid inputResponses: it must be an object mapping each inputRequests key "
                            "to the client's result")
    earlier: dict[str, Any] = {}
    issued: dict[str, str] = {}
    if "requestState" in params:
        verified = codec.verify(params["requestState"], binding)
        earlier, issued = verified.answers, verified.issued
    exchange = Exchange(codec, binding, earlier, responses, issued)
    request.put(EXCHANGE, exchange)
    return exchange


async def begin_large(codec: RequestStateCodec, request: RequestContext, method: str, name: str,
                      arguments: object, params: dict[str, Any]) -> Exchange:
    """:func:`begin` for a large message (:attr:`~..wire.request.RequestContext.large`): the digest
    of its arguments (their canonical JSON, hashed: about a second per 10 MB of numbers) made on a
    worker thread, piece by piece (:func:`~.request_state.arguments_digest_stepwise`), the rest (a
    ``requestState`` checked and marked used) on the loop."""
    digest = await asyncio.to_thread(arguments_digest_stepwise, arguments)
    return begin(codec, request, method, name, arguments, params, digest)
