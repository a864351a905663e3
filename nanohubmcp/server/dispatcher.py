"""The dispatcher: method name → handler, per protocol era, behind the call pipeline, and the one
exception boundary.

A transport calls :meth:`Dispatcher.handle` with a :class:`RequestContext`. A request whose
``params._meta`` is not an object is -32602 before anything else (MCP, Basic § ``_meta``: the
schema's ``_meta`` is an object in every version; a 2026-07-28 request is refused so at intake,
with HTTP 400). Requests pass the call pipeline (:mod:`.pipeline`: the built-in layers, then the
user's middleware) to their handler and get a response message back; notifications and client
responses get None.
Exceptions raised by layers or handlers become JSON-RPC error objects here and nowhere else
(``errors.to_error_object``); tool failures never get this far — the ``tools/call`` handler
turns them into ``isError`` results.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..errors import InvalidParams, MethodNotFound, ProtocolError, error_response
from ..protocol import jsonrpc
from ..protocol.tuple_records import TupleRecord
from ..schema.paths import echoed
from .layers import session_limit, tool_scopes, version_gate
from .middleware import Request
from .pipeline import NotAResult, Pipeline
from .results.written import WRITTEN, as_sent
from .wire.request import META_SERVER_INFO, RequestContext

if TYPE_CHECKING:
    from typing import Protocol

    from .handlers.host import ToolsHost
    from .services import Published, Replicated
    from .stateless.hosts import ListenHost, ModernHost
    from .wire.pending import ClientRequests

    class Routed(ToolsHost, ModernHost, ListenHost, Published, Replicated, Protocol):
        """What the dispatcher reads of its server (the pending client requests, the requests in flight, the
        registry, the replication, ``serverInfo``) and hands its handlers: the union of what each family of
        handlers reads, each of which names its own (:mod:`.handlers.host`, :mod:`.stateless.hosts`); a handler
        sees only its own. Only the dispatcher and the method tables name it."""

        client_requests: ClientRequests
        in_flight: set[RequestContext]

log = logging.getLogger("nanohubmcp")

Handler = Callable[["Routed", RequestContext, dict[str, Any]], Awaitable[dict[str, Any]]]
NotificationHandler = Callable[["Routed", RequestContext, dict[str, Any]], Awaitable[None]]


class MethodTables(TupleRecord,
                   tuple["Mapping[str, Handler]", "Mapping[str, Handler]", "Mapping[str, NotificationHandler]"]):
    """Method name → handler: requests of the handshake era (2024-11-05 … 2025-11-25), requests
    of the stateless era (2026-07-28), and the client notifications the server acts on,
    ``(handshake, modern, notifications)``. A tuple written out, not a ``NamedTuple``, which cost ~0.9 M
    instructions more to make at import (bench/startup.md, eighth pass)."""

    __slots__ = ()
    _fields = ("handshake", "modern", "notifications")

    def __new__(cls, handshake: Mapping[str, Handler], modern: Mapping[str, Handler],
                notifications: Mapping[str, NotificationHandler]) -> MethodTables:
        return tuple.__new__(cls, (handshake, modern, notifications))

    @property
    def handshake(self) -> Mapping[str, Handler]:
        return self[0]

    @property
    def modern(self) -> Mapping[str, Handler]:
        return self[1]

    @property
    def notifications(self) -> Mapping[str, NotificationHandler]:
        return self[2]


class Dispatcher:
    """Routes messages of both eras to the handlers ``tables`` name."""

    def __init__(self, core: Routed, tables: MethodTables) -> None:
        self.core = core
        self.tables = tables
        self.pipeline = Pipeline(
            self._endpoint,
            (version_gate(tables.handshake, tables.modern), session_limit(), tool_scopes()),
            methods={*tables.handshake, *tables.modern},
        )

    async def handle(self, request: RequestContext) -> dict[str, Any] | None:
        """Serve one message; returns the response message for requests, else None.

        A request runs through the call pipeline's chain of its route (its method, era, caller and
        session: the layers that act on it) to its handler, and gets its response (result or error).
        """
        message = request.message
        kind = message.kind
        if kind == jsonrpc.REQUEST:
            method: str = message.method  # type: ignore[assignment]  # a request always has one
            pipeline = self.pipeline
            route = (method, request.modern, request.principal is not None, request.session is not None)
            chain = pipeline.chains.get(route) or pipeline.chain(route)
            in_flight = self.core.in_flight
            in_flight.add(request)  # so shutdown can tell every running call (sessionless ones too)
            params = message.params or {}
            try:
                meta = params.get("_meta")
                if meta is not None and not isinstance(meta, dict):  # (null: as if absent, as clients differ)
                    raise InvalidParams(f'Invalid params: "params._meta" must be an object (such as '
                                        f'{{"progressToken": 1}}), not {jsonrpc.json_kind(meta)}; send an '
                                        'object or leave it out')
                result = await chain(Request(request, method, params, self.core.registry.tools))
                if not isinstance(result, dict):
                    raise pipeline.not_a_result(method, result)
                if request.modern:  # a layer's own answer is stamped as well
                    self._stamp(result)
            except ProtocolError as exc:
                return error_response(exc, message.id)
            except NotAResult as exc:  # the application's mistake, said in one line: no traceback of ours
                log.error("internal error while serving %s: %s", method, exc)
                return error_response(exc, message.id)
            except Exception as exc:
                log.exception("internal error while serving %s", method)
                return error_response(exc, message.id)
            finally:
                in_flight.discard(request)
            if WRITTEN in request.slots:  # (written when measured for one event: copied, not written again)
                result = as_sent(request, result)
            return {"jsonrpc": "2.0", "id": message.id, "result": result}  # the success response (JSON-RPC 2.0 § 5)
        if kind == jsonrpc.RESPONSE:
            replication = self.core.replication
            if (not self.core.client_requests.resolve(request, message) and replication is not None
                    and request.session is not None):
                await replication.relay_answer(request.session, message)  # another process waits for it
            return None
        await self._notify(request)
        return None

    def _endpoint(self, request: Request) -> Awaitable[dict[str, Any]]:
        """The innermost step of the pipeline: the method's handler; its result as it goes on the wire.
        A plain function handing on the handler's awaitable (no coroutine level of its own in the
        handshake era); a method without a handler raises at once."""
        context = request.context
        handler = (self.tables.modern if context.modern else self.tables.handshake).get(request.method)
        if handler is None:
            raise MethodNotFound(f"Method not found: {echoed(request.method)}")
        if context.on_accepted is not None:
            context.on_accepted()
        if context.modern:
            return self._stamped(handler(self.core, context, request.params))
        return handler(self.core, context, request.params)

    async def _stamped(self, result: Awaitable[dict[str, Any]]) -> dict[str, Any]:
        answer = await result
        self._stamp(answer)
        return answer

    def _stamp(self, result: dict[str, Any]) -> None:
        """A 2026-07-28 result's ``resultType`` and the server's identity in ``_meta``."""
        result.setdefault("resultType", "complete")
        meta = result.setdefault("_meta", {})
        if META_SERVER_INFO not in meta:
            meta[META_SERVER_INFO] = self.core.server_info()

    async def _notify(self, request: RequestContext) -> None:
        handler = self.tables.notifications.get(request.message.method)  # type: ignore[arg-type]
        if handler is None:
            return  # unknown notifications are ignored (JSON-RPC 2.0 § 4.1)
        try:
            await handler(self.core, request, request.message.params or {})
        except ProtocolError as exc:
            # The client's mistake: a notification gets no answer, and one log line, not a traceback.
            log.info("ignored notification %s: %s", request.message.method, exc.message)
        except Exception:
            log.exception("error while handling notification %s", request.message.method)
