"""Resources: list, templates, read, subscribe/unsubscribe.

A read finds the exact URI first, then the template whose literal part is longest (the scheme in any
case, the rest exactly: :meth:`.Registry.find_resource`). Not found is
-32002 with ``data.uri`` in the handshake era and -32602 in 2026-07-28 (SEP-2164). A URI longer than
:data:`MAX_URI_LENGTH` (8192 characters) is -32602 saying the limit, before any template sees it. A
function's ``FileNotFoundError`` is not found as well; another ``OSError``
is -32603 with its ``strerror`` (no file name); the file name, a server path, goes to the server log.
A large result the server kept (``nanohubmcp://results/...``) is read from its store, by its owner or, for
what a job kept, by whoever may read that job (:mod:`.kept_reader`); on a transport
that writes its text a piece at a time (:data:`~nanohubmcp.server.wire.request.STREAMS_TEXT`), as its
open file. An answer going as one SSE event (legacy SSE; Streamable HTTP once a log or progress message of the
read went first) over the official client's 1 MiB is a JSON-RPC error naming its size instead
(:func:`~..results.event_bound.hold_read_to_event`). Its URI is compared as a registered one is
(:func:`~nanohubmcp.protocol.uris.comparison_form`: ``NanoHubMCP://%72esults/<id>`` reads
``nanohubmcp://results/<id>``), the id in it exactly (ids have case), and the answer names the spelling
asked for. With a shared state store (``state_url``), a result this process does not hold is not found with a note
that processes sharing a ``state_url`` must share ``state_dir`` (:data:`KEPT_ELSEWHERE`).

Source: MCP 2025-11-25, Server § Resources; MCP 2026-07-28, Server § Resources.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from ...errors import InternalError, InvalidParams, ResourceNotFound, text_of
from ...protocol.message_values import show
from ...protocol.uris import MAX_URI_LENGTH, bad_escape, comparison_form
from ...schema.paths import echoed, uri_data
from ..calls.call_endings import cancelled_by_client, client_cancelled
from ..calls.context import Context
from ..calls.invoke import CallRecord, call_function, cancelled_with_its_client
from ..registry.resources import Resource, ResourceTemplate
from ..results import RESULT_URI_PREFIX
from ..results import shape as results
from ..results.event_bound import goes_as_event, hold_read_to_event
from ..results.kept_parts import parts_note, parts_template, split_part
from ..results.written import keep_written
from ..wire.request import STREAMS_TEXT, RequestContext
from .kept_reader import kept_reader
from .list_pages import list_result

if TYPE_CHECKING:
    from .host import ResourcesHost

log = logging.getLogger("nanohubmcp")

KEPT_ELSEWHERE = (" (no such result is kept in this process's state_dir. A kept result is held in the state_dir of the "
                  "process that made it: processes sharing a state_url must share one state_dir, on storage they all "
                  "read, to read one another's links)")
"""What a not-found read of a ``nanohubmcp://results/`` URI adds when the server shares a state store (another
process may have kept it in a state_dir this one does not read)."""
MAX_SUBSCRIPTIONS = 64
"""The most resource URIs one session may subscribe to (one more is -32602); spellings of one URI
(``CONFIG://lab``, ``config://%6Cab``) count once."""
MAX_SUBSCRIBED_CHARS = 16 * 1024
"""Characters of the URIs (as sent) one session's subscriptions may hold in all (one more is -32602): a
session lives an idle hour, in Redis too, and one principal may hold 1,000 of them, so 64 URIs of 8,192
characters each (a template's value) would let one client park half a megabyte per session."""


def _uri(params: dict[str, Any], method: str) -> str:
    uri = params.get("uri")
    if not isinstance(uri, str) or not uri:
        raise InvalidParams(f"{method} needs params.uri, the resource URI as a string")
    if len(uri) > MAX_URI_LENGTH:
        raise InvalidParams(f"{method}: params.uri is {len(uri)} characters long; at most {MAX_URI_LENGTH} are "
                            "accepted", {"length": len(uri), "limit": MAX_URI_LENGTH})
    return uri


async def resources_list(core: ResourcesHost, request: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """``resources/list``, paged by :func:`.list_pages.list_result`."""
    return list_result(core, request, core.registry.resources, "resources", params, "resources/list")


async def templates_list(core: ResourcesHost, request: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """``resources/templates/list``, paged by :func:`.list_pages.list_result`: the server's templates, and last the
    one a kept large result reads in parts by (:data:`~..results.kept_parts.PARTS_TEMPLATE`)."""
    return list_result(core, request, core.registry.templates, "resourceTemplates", params,
                       "resources/templates/list", last=(parts_template(),))


def found(core: ResourcesHost, uri: str) -> tuple[Resource | ResourceTemplate, dict[str, Any]]:
    """The resource or template answering ``uri`` and the function's arguments from it: what
    ``resources/read`` and ``resources/subscribe`` both check, so a URI one refuses the other does too.

    Raises:
        ResourceNotFound: (-32002) nothing answers ``uri``.
        InvalidParams: (-32602) a template variable its parameter cannot take, or a query parameter
            given more than once (``?q=a&q=b``), naming it; a URI matching a template with a ``%`` that
            begins no percent-escape (``%ZZ``).
    """
    record, values = core.registry.find_resource(uri)
    if isinstance(record, ResourceTemplate):
        bad = bad_escape(uri)
        if bad is not None:  # its values would reach the function half decoded
            raise InvalidParams(
                f"Invalid URI for resource template '{record.uri_template}': {show(bad)} is not a percent-escape "
                "(% and two hexadecimal digits); write a % itself as %25",
                {"uri": uri, "uri_template": record.uri_template})
        return record, record.arguments(values)
    return record, dict(values)


async def resources_read(core: ResourcesHost, request: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """``resources/read`` → ``{contents: [...]}``.

    Raises:
        InternalError: (-32603) the answer goes as one SSE event (:func:`~..results.event_bound.goes_as_event`)
            and is over the server's ``max_event_bytes`` (default 1 MiB, what the official client reads in one;
            None: no bound) (:func:`~..results.event_bound.hold_read_to_event`: its message names the size and
            where the resource reads whole).
    """
    uri = _uri(params, "resources/read")
    key = comparison_form(uri)  # the store's URIs are minted in that form; the id in them is compared exactly
    if key.startswith(RESULT_URI_PREFIX):
        key, part = split_part(key)  # ?part=N: one part of it (kept_parts), each fitting one event
        reader = kept_reader(core, request, key)  # the caller's own; what a job kept: also its job's readers
        bound = core.result_options.max_event_bytes
        if part is not None:
            kept = core.result_store.read_part(key, reader, part, bound, named=uri)
        else:
            kept = core.result_store.read(key, reader, pieces=STREAMS_TEXT in request.slots)
        if kept is not None:
            kept["contents"][0]["uri"] = uri  # the spelling asked for, as a registered resource's read names it
            if goes_as_event(request):  # over the client's 1 MiB: an error it reads, not an event it drops
                held = core.result_store.size_of(key)
                parts = "" if held is None else parts_note(uri.partition("?")[0], held[0], held[1], bound)
                text = hold_read_to_event(kept, uri, kept=True, bound=bound, parts=parts)
                if text is not None:
                    keep_written(request, kept, text)
            return kept
        evicted = core.result_store.evicted(key, reader)
        if evicted is not None:
            data = {"uri": uri, "evicted": True}
            raise InvalidParams(evicted, data) if request.modern else ResourceNotFound(evicted, data)
    try:
        record, values = found(core, uri)
    except ResourceNotFound as exc:
        if key.startswith(RESULT_URI_PREFIX) and core.replication is not None:  # (a state store shared)
            exc = ResourceNotFound(exc.message + KEPT_ELSEWHERE, exc.data)
        if request.modern:
            raise InvalidParams(exc.message, exc.data) from None
        raise exc from None
    call = CallRecord(core.bus, request, "resources/read", uri) if core.bus.active else None
    try:
        context = Context(core.call_seams, request) if record.signature.context_param else None
        kwargs = record.signature.call_arguments(dict(values), context, kind="resource", name=record.uri)
        run = call_function(record.fn, kwargs, is_coroutine=record.is_coroutine, executor=core.executor,
                            timeout=core.tool_timeout, what=f"resource '{uri}'", may_run_inline=context is None)
        value = await (cancelled_with_its_client(request, run) if record.is_coroutine else run)
        result = results.resource_result(value, uri=uri, mime_type=record.mime_type, meta=record.meta)
    except Exception as exc:
        if client_cancelled(request):  # no answer is sent, whatever the function did at its client's cancel
            raise cancelled_by_client(request, call) from None
        if call:
            call.finish(False, text_of(exc))
        raise _read_failed(uri, exc, modern=request.modern) from exc
    try:  # the read is recorded as the client is answered: a refusal as failed
        if goes_as_event(request):
            text = hold_read_to_event(result, uri, kept=False, bound=core.result_options.max_event_bytes)
            if text is not None:
                keep_written(request, result, text)
    except InternalError as exc:
        if call:
            call.finish(False, exc.message)
        raise
    if client_cancelled(request):  # a sync function that returned after its client's cancel: not answered
        raise cancelled_by_client(request, call)
    if call:
        call.finish(True)
    return result


def _read_failed(uri: str, exc: Exception, *, modern: bool) -> Exception:
    from ...errors import InternalError, ProtocolError

    if isinstance(exc, ResourceNotFound):  # the function says nothing is at this URI
        data = exc.data if exc.data is not None else uri_data(uri)
        return InvalidParams(exc.message, data) if modern else ResourceNotFound(exc.message, data)
    if isinstance(exc, ProtocolError):
        return exc
    if isinstance(exc, OSError):
        # A missing file is "not found"; no OSError's file name (the server's own path) goes to the client.
        log.warning("resources/read %s: %s", uri, exc)
        if isinstance(exc, FileNotFoundError):  # what open() raises for ENOENT
            message = f"Resource not found: {echoed(uri)}"
            return InvalidParams(message, uri_data(uri)) if modern else ResourceNotFound(message, uri_data(uri))
        if exc.strerror:  # "[Errno 13] Permission denied: '/srv/data/x'" → "Permission denied"
            return InternalError(f"Reading {echoed(uri)} failed: {exc.strerror}", uri_data(uri))
    # The function's own message is for the client (like a tool's); never a traceback.
    # (a __str__ that raises: its type)
    return InternalError(f"Reading {echoed(uri)} failed: {text_of(exc)}", uri_data(uri))


async def subscribe(core: ResourcesHost, request: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """``resources/subscribe``: notify this session when ``uri`` changes.

    URIs are compared as ``resources/read`` compares them (:func:`~nanohubmcp.protocol.uris.comparison_form`:
    the scheme in any case, an escaped unreserved character as itself, an escape's hex in any case): a
    subscription to ``CONFIG://%6Cab`` is told of a change of ``config://lab``, in a
    ``notifications/resources/updated`` naming ``CONFIG://%6Cab``, the URI as subscribed (the one spelling
    the client knows to look for). Subscribing again in another spelling replaces the
    subscription (the newest spelling is named). At most :data:`MAX_SUBSCRIPTIONS` per session, of
    :data:`MAX_SUBSCRIBED_CHARS` characters in all (-32602).
    A URI ``resources/read`` refuses is refused alike (:func:`found`): one nothing answers (-32002), or
    one whose template variables its function cannot take, or with a query parameter given twice
    (-32602).
    """
    uri = _uri(params, "resources/subscribe")
    session = request.session
    if session is None:
        raise InvalidParams("resources/subscribe needs a session: initialize and send Mcp-Session-Id")
    found(core, uri)  # refused as resources/read refuses it: unknown (-32002), or arguments it cannot take (-32602)
    key = comparison_form(uri)
    if key not in session.subscriptions and len(session.subscriptions) >= MAX_SUBSCRIPTIONS:
        raise InvalidParams(f"at most {MAX_SUBSCRIPTIONS} subscriptions per session")
    held = sum(map(len, session.subscriptions.values())) - len(session.subscriptions.get(key, ""))
    if held + len(uri) > MAX_SUBSCRIBED_CHARS:
        raise InvalidParams(f"resources/subscribe: the session's subscriptions would hold {held + len(uri)} characters "
                            f"of URIs; at most {MAX_SUBSCRIBED_CHARS} in all: unsubscribe some first",
                            {"limit": MAX_SUBSCRIBED_CHARS})
    session.subscriptions[key] = uri
    return {}


async def unsubscribe(core: ResourcesHost, request: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    """``resources/unsubscribe``: ends the subscription to ``uri`` in any spelling ``resources/read`` takes
    for it (``data://%6Cab`` ends one to ``data://lab``)."""
    uri = _uri(params, "resources/unsubscribe")
    if request.session is not None:
        request.session.subscriptions.pop(comparison_form(uri), None)
    return {}

