"""An answer when it goes as one SSE event: the options a call's is shaped with (:func:`answer_options`) and the
refusal of one still too large for it (:func:`hold_to_event`; a task's result, :func:`hold_task_to_event`; a
``resources/read``, :func:`hold_read_to_event`).

A call's answer over Streamable HTTP is a JSON body, or, once a related message went first (a progress notification for
a progress token, a log message), the last event of an SSE stream; over the legacy SSE transport it is always an event
(:func:`goes_as_event`). The official ``mcp`` client refuses an event over 1 MiB
(:data:`~nanohubmcp.protocol.client_event_cap.CLIENT_EVENT_BYTES`) and with it the whole call: it never reads the
answer. So the server bounds one event by its ``max_event_bytes`` (:attr:`.options.ResultOptions.max_event_bytes`: 1 MiB
by default; None: no bound, for clients reading events of any size, and then nothing here applies): such an answer is
shaped by the large-result rule with ``max_inline_bytes`` at most a quarter of the bound (:func:`event_inline_bytes`:
:data:`EVENT_INLINE_BYTES` by default): data over it is kept and answered as a ``resource_link`` (with its preview), as
a JSON answer's data over ``max_inline_bytes`` is, even when ``max_inline_bytes`` is larger or None. A result that
cannot be linked (a tool declaring an output schema promises its structured content) and is still over the event's bytes
is not sent: the call answers a tool error naming its size and what to do instead, which the client reads
(:func:`hold_to_event`). A REST answer (``data_only``) is a JSON body: never an event.

A stored result read back is held alike when its answer goes as an event: a ``tasks/result`` over legacy SSE (a
finished task's result, its data linked over ``max_inline_bytes`` only) answers a tool error instead, as does
the completed task a 2026 ``subscriptions/listen`` tells (:func:`hold_task_to_event`); and a ``resources/read`` (a
kept large result, a large resource) over legacy SSE, or over Streamable HTTP once a log or progress message of
the read went first (its answer then the last event of the POST's stream, or of the GET stream resuming it),
answers a JSON-RPC error naming its size and where it reads whole (:func:`hold_read_to_event`): a resource's
contents cannot be cut or linked; a kept result's error names its parts (:mod:`.kept_parts`), each of which reads in
one event. Where nothing went before the answer,
it is a JSON body already, whatever its size.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, Final, NamedTuple, Protocol

from ...errors import InternalError, ResultTooLarge
from ...protocol import jsonenc
from ...protocol.client_event_cap import CLIENT_EVENT_BYTES, EVENT_ENVELOPE_BYTES, said_bound
from ...protocol.least_size import least_bytes
from ...protocol.text_pieces import TextPieces
from ..wire.request import RequestContext
from .options import ResultOptions
from .written import KEPT_FROM

__all__ = [
    "AS_EVENT_WHEN",
    "EVENT_INLINE_BYTES",
    "EVENT_TRANSPORTS",
    "Measure",
    "answer_options",
    "event_bytes",
    "event_inline_bytes",
    "goes_as_event",
    "held_to_schema",
    "hold_prompt_to_event",
    "hold_read_to_event",
    "hold_task_to_event",
    "hold_to_event",
    "measure",
    "task_result_via",
]

EVENT_INLINE_BYTES: Final = CLIENT_EVENT_BYTES // 4
"""The most bytes of a result's data inlined in an answer sent as one SSE event under the default bound (256 KiB,
the default ``max_inline_bytes``): :func:`event_inline_bytes` of 1 MiB."""

AS_EVENT_WHEN: Final = {False: frozenset({"sse"}), True: frozenset({"streamable-http", "sse"})}
"""By :attr:`RequestContext.stream_opened <nanohubmcp.server.wire.request.RequestContext.stream_opened>`, the
transports (:attr:`RequestContext.transport`) whose answer goes as one SSE event: legacy SSE always, Streamable
HTTP once the request's stream opened. :func:`goes_as_event`'s first test, and the one source of it: a caller on the
hot path may read it first (a dict and a set, no call) and ask :func:`goes_as_event` only when it says yes."""

EVENT_TRANSPORTS: Final = AS_EVENT_WHEN[True]
"""The transports whose answers may go as SSE events (:attr:`RequestContext.transport`)."""


def goes_as_event(request: RequestContext) -> bool:
    """Whether ``request``'s answer goes as one SSE event as things stand: over legacy SSE always; over Streamable
    HTTP (either era) once its stream opened (:attr:`RequestContext.stream_opened`: a related message went out);
    never over REST (``data_only``), stdio or in memory; never for a call whose work is a job's (an ``@async_tool``'s,
    or a 2026-07-28 call gone on as a task by ``ctx.start_task()``: :attr:`RequestContext.job_id`): its answer, the
    job's handle, went or goes alone, and the result is the job's, stored whole and read back by ``tasks/get``,
    ``tasks/result`` or ``get_job_result``, which hold it to their own answers."""
    return request.transport in AS_EVENT_WHEN[request.stream_opened] and not request.data_only \
        and request.job_id is None


def event_inline_bytes(bound: int) -> int:
    """The most bytes of a result's data (JSON, or a picture's PNG) inlined in an answer sent as one SSE event of
    at most ``bound`` bytes (the server's ``max_event_bytes``): a quarter of it, as the answer carries the data twice
    (its text and its ``structuredContent``), the text escaped as a JSON string."""
    return bound // 4


def answer_options(options: ResultOptions, request: RequestContext) -> ResultOptions:
    """``options``, or, for a ``request`` whose answer goes as an SSE event (:func:`goes_as_event`) under a bound
    (``options.max_event_bytes`` not None) and whose ``max_inline_bytes`` is None or over
    :func:`event_inline_bytes` of it, a copy with ``max_inline_bytes`` = that."""
    if options.max_event_bytes is None:
        return options
    share, limit = event_inline_bytes(options.max_event_bytes), options.max_inline_bytes
    if (limit is not None and limit <= share) or not goes_as_event(request):
        return options
    return dataclasses.replace(options, max_inline_bytes=share)


class Measure(NamedTuple):
    """What :func:`measure` found of a result for one event."""

    size: int | None
    """The result's bytes as JSON (UTF-8) when over what the event carries, else None (it fits, no bound, or JSON
    cannot write it)."""
    at_least: bool = False
    """``size`` is a lower bound, found without writing the result
    (:func:`~nanohubmcp.protocol.least_size.least_bytes`): it is that far over whatever the rest of it is."""
    text: str | None = None
    """The result's JSON text when it fits and was written whole, of :data:`.written.KEPT_FROM` characters or more
    (for the response to copy: :mod:`.written`), else None."""


def measure(result: dict[str, Any], bound: int | None, *, early: bool = True) -> Measure:
    """How ``result`` stands against one event of ``bound`` bytes (``bound`` less
    :data:`~nanohubmcp.protocol.client_event_cap.EVENT_ENVELOPE_BYTES`; None: no bound, nothing measured): over
    it (:attr:`Measure.size`), or fitting, with its JSON text (:attr:`Measure.text`, written by
    :func:`~nanohubmcp.protocol.jsonenc.dumps`: the response copies it, never writing it again). A result whose
    strings and lists alone are over it (:func:`~nanohubmcp.protocol.least_size.least_bytes`) is over without
    being written (``at_least``; ``early=False``: not looked for, the result is written at once: a tool's result
    not held to an output schema, whose data over a quarter of the bound was linked, is seldom over it, and the
    look costs a small answer about as much as writing it). A ``resources/read`` content's text read from a kept file
    (:class:`~nanohubmcp.protocol.text_pieces.TextPieces`) counts its
    :attr:`~nanohubmcp.protocol.text_pieces.TextPieces.size`, counted when it was opened: the file is not read
    again (and no text is kept: the wire writes that text a piece at a time). JSON cannot write it: fits, left to
    the transport, which answers it as it answers any such result."""
    if bound is None:
        return _FITS
    room = bound - EVENT_ENVELOPE_BYTES
    if early:
        least = least_bytes(result)
        if least > room:
            return Measure(least, at_least=True)
    pieces = 0
    contents = result.get("contents")
    if isinstance(contents, list) and any(isinstance(block.get("text"), TextPieces) for block in contents):
        shown = []
        for block in contents:
            text = block.get("text")
            if isinstance(text, TextPieces):
                pieces += text.size
                block = {**block, "text": ""}
            shown.append(block)
        result = {**result, "contents": shown}
    try:
        text = jsonenc.dumps(result)
    except (TypeError, ValueError):  # (NestedTooDeep and LongInteger are ValueErrors)
        return _FITS
    size = pieces + (len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass")))
    if size > room:
        return Measure(size)
    return _fitting((None, False, text if len(text) >= KEPT_FROM and not pieces else None))


_fitting: Final = functools.partial(tuple.__new__, Measure)  # (a Measure without NamedTuple's __new__: every answer)


_FITS: Final = Measure(None)


def event_bytes(result: dict[str, Any], bound: int | None) -> int | None:
    """:func:`measure`'s :attr:`~Measure.size`: the bytes of ``result`` as JSON (UTF-8) when over what one event
    of ``bound`` bytes carries (at least that many, when found without writing it), else None."""
    return measure(result, bound).size


def _too_large(what: str, found: Measure, bound: int) -> str:
    size = f"{found.size} or more" if found.at_least else found.size
    return (f"{what} {size} bytes of JSON, more than a client reads in one server-sent event ({said_bound(bound)}), "
            "and this answer goes as one")


class _ToolsByName(Protocol):
    """The registry's tools as :func:`held_to_schema` reads them."""

    def get(self, name: str, /) -> Any: ...


def held_to_schema(tools: _ToolsByName, name: str) -> bool:
    """Whether tool ``name`` of ``tools`` (the registry's tools by name) declares an output schema, so that its
    result's data is sent inline, never linked (the ``held`` of :func:`hold_to_event` and
    :func:`hold_task_to_event`); False for a tool no longer registered."""
    tool = tools.get(name)
    return tool is not None and tool.output_schema is not None


def task_result_via(request: RequestContext) -> str:
    """How ``request`` (a ``tasks/result`` whose answer goes as one event) went, as :func:`hold_task_to_event`
    says it: over legacy SSE, or over Streamable HTTP once a log or progress message of it went first."""
    if request.transport == "sse":
        return "tasks/result over the legacy SSE transport"
    return "tasks/result over Streamable HTTP, after a log or progress message of it"


def hold_to_event(result: dict[str, Any], tool: str, *, held: bool, bound: int | None) -> str | None:
    """Refuse ``result`` (tool ``tool``'s ``CallToolResult``, answered as one SSE event; ``held``: the tool declares
    an output schema, so its data was not linked) when it is over what one event of ``bound`` bytes (the server's
    ``max_event_bytes``; None: no bound) carries as JSON (:func:`event_bytes`): the client would lose the call,
    never reading it. A result JSON cannot write is left to the transport, which answers it as it answers any such
    result.

    Returns:
        ``result``'s JSON text when it fits and was written whole (:attr:`Measure.text`), for its response to copy
        (:func:`.written.keep_written`); else None.

    Raises:
        ResultTooLarge: naming the size, the bound, why the answer goes as an event, and what to do
            instead (less data; a call answered as JSON; for a result held to an output schema, which is never
            linked, the server's author dropping the schema).
    """
    found = measure(result, bound, early=held)
    if found.size is None or bound is None:
        return found.text
    raise ResultTooLarge(
        _too_large(f"tool '{tool}' answered", found, bound) + " (the call reported progress or logged before it ended, "
        "or came over the legacy SSE transport)"
        + ("; a result held to an output schema is sent inline, never linked" if held else "")
        + ". Ask for less data (a smaller size, range or sample), or call the tool over Streamable HTTP with no "
        "progress token: when nothing goes before it (nor a log message), the answer is JSON, whatever its size"
        + ("; the server's author may declare no output_schema, so that data over max_inline_bytes is kept and "
           "linked" if held else ""))


def hold_task_to_event(result: dict[str, Any], task: str, tool: str, *, held: bool, bound: int | None,
                       via: str = "tasks/result over the legacy SSE transport",
                       read_with: str = "tasks/result") -> str | None:
    """Refuse ``result`` (what a finished task ``task`` of tool ``tool`` answers, going as one SSE event: a
    ``tasks/result`` over legacy SSE, ``via``, or the 2026 listen's last ``notifications/tasks`` of it, whose
    ``DetailedTask`` carries it; ``held``: the tool declares an output schema, so its data was not linked) when it
    is over what one event of ``bound`` bytes carries as JSON, as :func:`hold_to_event` refuses a call's. The task's
    result stays stored: ``read_with`` over Streamable HTTP answers it whole, as JSON.

    Returns:
        ``result``'s JSON text when it fits and was written whole (:attr:`Measure.text`), for its response to copy
        (:func:`.written.keep_written`); else None.

    Raises:
        ResultTooLarge: naming the size, the bound, and what to do instead.
    """
    found = measure(result, bound)
    if found.size is None or bound is None:
        return found.text
    raise ResultTooLarge(
        _too_large(f"task {task} (tool '{tool}') answered", found, bound) + f" ({via})"
        + ("; a result held to an output schema is sent inline, never linked" if held else
           "; its data is linked only over max_inline_bytes")
        + f". The result is kept: send {read_with} for it over Streamable HTTP with nothing sent before the answer "
        "(no log level set for it), where it is answered as JSON whatever its size, or call the tool again for less "
        "data (a smaller size, range or sample)"
        + ("; the server's author may declare no output_schema, so that data over max_inline_bytes is kept and "
           "linked" if held else ""))


def hold_read_to_event(result: dict[str, Any], uri: str, *, kept: bool, bound: int | None,
                       parts: str = "") -> str | None:
    """Refuse ``result`` (the ``ReadResourceResult`` of ``uri``, going as one SSE event: :func:`goes_as_event`)
    when it is over what one event of ``bound`` bytes (the server's ``max_event_bytes``; None: no bound) carries as
    JSON (:func:`event_bytes`): the client would lose the
    read. A resource's contents cannot be linked or cut (its text or blob is the answer), so the read is a JSON-RPC
    error naming the size and where it reads whole; a kept file's text (``kept``: a large result the server keeps)
    is closed, and ``parts`` (:func:`~.kept_parts.parts_note`: how many parts and the first's URI) says how it
    reads in parts, on any transport.

    Returns:
        ``result``'s JSON text when it fits and was written whole (:attr:`Measure.text`), for its response to copy
        (:func:`.written.keep_written`); else None.

    Raises:
        InternalError: (-32603) ``data``: ``{"uri", "bytes", "limit"}`` (``limit``: the bound; ``bytes``: a lower bound
            when the message says "or more", found without writing the answer).
    """
    found = measure(result, bound)
    if found.size is None or bound is None:
        return found.text
    for block in result.get("contents") or ():
        if isinstance(block.get("text"), TextPieces):
            block["text"].close()
    what = "a large result the server kept" if kept else "a resource"
    raise InternalError(
        _too_large(f"resources/read of {uri} ({what}) answered", found, bound)
        + _sent_whole_over("read", "read", "read it", parts=parts if kept else "")
        + ("" if kept else "; or ask the server's author for a smaller resource or a template that reads it in parts"),
        {"uri": uri, "bytes": found.size, "limit": bound})


def hold_prompt_to_event(result: dict[str, Any], name: str, *, bound: int | None) -> str | None:
    """Refuse ``result`` (prompt ``name``'s ``GetPromptResult``, going as one SSE event: :func:`goes_as_event`)
    when it is over what one event of ``bound`` bytes (the server's ``max_event_bytes``; None: no bound) carries
    as JSON, as :func:`hold_read_to_event` refuses a read: a prompt's messages are the answer, not cut or linked.

    Returns:
        ``result``'s JSON text when it fits and was written whole (:attr:`Measure.text`), for its response to copy
        (:func:`.written.keep_written`); else None.

    Raises:
        InternalError: (-32603) ``data``: ``{"prompt", "bytes", "limit"}`` (``limit``: the bound; ``bytes``: a lower
            bound when the message says "or more").
    """
    found = measure(result, bound)
    if found.size is None or bound is None:
        return found.text
    raise InternalError(
        _too_large(f"prompts/get of '{name}' answered", found, bound) + _sent_whole_over("get", "sent", "get it")
        + "; or ask the server's author for a smaller prompt (a resource_link to its large part)",
        {"prompt": name, "bytes": found.size, "limit": bound})


def _sent_whole_over(verb: str, done: str, do: str, *, parts: str = "") -> str:
    """Why a request's answer went as one event and where it is answered whole (a read's, a prompt's); ``parts``:
    how it reads in parts instead (a kept result's), when it does."""
    why = (" (it came over the legacy SSE transport, or over Streamable HTTP after a log or progress message of "
           f"the {verb}).")
    where = (f"over Streamable HTTP with nothing sent before the answer (no log level set for the {verb}, no progress "
             "token), where it is answered as JSON whatever its size, or over stdio")
    if parts:
        return f"{why} Read it {parts}, on any transport; or {do} whole {where}"
    return f"{why} It is not cut and cannot be {done} in parts: {do} {where}"
