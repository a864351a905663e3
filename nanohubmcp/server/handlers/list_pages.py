"""A ``*/list`` answer's page: at most ``list_page_size`` entries and, when the answer goes as one SSE event, at most
the server's ``max_event_bytes`` (MCP 2025-11-25, Server § Utilities § Pagination: the page size is the server's).

Over the legacy SSE transport (and over Streamable HTTP once a message went before the answer) an answer is one SSE
event, which the official ``mcp`` client reads only up to 1 MiB (:mod:`~...protocol.client_event_cap`): an event past
it is dropped, and over legacy SSE the whole session with it. So a list answered as an event under a bound ends its
page before the entry that would take the answer over it (:func:`fitted_page`) and gives ``nextCursor``, an opaque
cursor naming the last entry sent, as a page of ``list_page_size`` does; the client lists on from there. An answer
sent as a JSON body (Streamable HTTP, nothing sent before it), over stdio or in memory is paged by count only.

One entry alone over the bound (a tool whose schema or description is over a MiB) cannot be sent as one event: the
page holding it is the JSON-RPC error -32603 naming it, its size, and the cursor past it (``data.nextCursor``).
A ``tasks/list`` entry is never that large: a task's status message is cut at 65,536 characters
(:data:`~...errors.MAX_NOTIFIED_CHARS`, at most ~400 KB as JSON) and the bound is at least 1 MiB.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ...errors import InternalError
from ...protocol import jsonenc
from ...protocol.client_event_cap import EVENT_ENVELOPE_BYTES, said_bound
from ..registry.registry import encode_cursor
from ..results.event_bound import goes_as_event
from ..wire.request import RequestContext

if TYPE_CHECKING:
    from ..registry.registry import _Table
    from .host import HandlerServices

__all__ = ["event_bound", "fitted_page", "list_result"]

_LABELS = ("uriTemplate", "uri", "taskId", "name")
"""The key naming a list entry in a refusal: a template's, a resource's, a task's, a tool's or prompt's."""


def event_bound(core: HandlerServices, request: RequestContext) -> int | None:
    """The most bytes ``request``'s answer may be: the server's ``max_event_bytes`` when it goes as one SSE event
    (:func:`~..results.event_bound.goes_as_event`), else None (no bound: a JSON body)."""
    bound = core.result_options.max_event_bytes
    return bound if bound is not None and goes_as_event(request) else None


def fitted_page(key: str, entries: Sequence[dict[str, Any]], more: bool, cursor_after: Callable[[int], str], *,
                method: str, bound: int | None) -> dict[str, Any]:
    """``{key: entries[:n], nextCursor?}``: every entry (``n = len(entries)``) when the answer is within ``bound``
    bytes of JSON less :data:`~...protocol.client_event_cap.EVENT_ENVELOPE_BYTES` (or ``bound`` is None), else
    the most leading entries that are, ``nextCursor`` then naming the last of them. ``more``: entries follow this
    page (``nextCursor`` is given even when every entry fits); ``cursor_after(i)``: the cursor naming entry ``i``.

    Raises:
        InternalError: (-32603) the first entry alone is over the bound; ``data``: ``{"entry", "bytes", "limit",
            "nextCursor"?}`` (the cursor past it, when entries follow it).
    """
    count = len(entries)
    if bound is None:
        return _page(key, list(entries), cursor_after(count - 1) if more and count else None)
    limit, used = bound - EVENT_ENVELOPE_BYTES, len(key) + 6  # {"key":[]}
    for i, entry in enumerate(entries):
        used += _bytes(jsonenc.dumps(entry)) + (1 if i else 0)
        follows = more or i + 1 < count
        cursor = cursor_after(i) if follows else None
        if used + (len(cursor) + 16 if cursor else 0) > limit:  # ,"nextCursor":"…"
            if i == 0:
                raise _too_large(entry, used, bound, method, cursor)
            return _page(key, list(entries[:i]), cursor_after(i - 1))
    return _page(key, list(entries), cursor_after(count - 1) if more and count else None)


def _page(key: str, entries: list[dict[str, Any]], cursor: str | None) -> dict[str, Any]:
    result: dict[str, Any] = {key: entries}
    if cursor is not None:
        result["nextCursor"] = cursor
    return result


def _bytes(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def _too_large(entry: dict[str, Any], size: int, bound: int, method: str, cursor: str | None) -> InternalError:
    label = next((str(entry[k]) for k in _LABELS if k in entry), "?")
    data: dict[str, Any] = {"entry": label, "bytes": size, "limit": bound}
    if cursor is not None:
        data["nextCursor"] = cursor
    return InternalError(
        f"{method}: the entry {label!r} alone is {size} bytes of JSON, more than a client reads in one server-sent "
        f"event ({said_bound(bound)}), and this answer goes as one (it came over the legacy SSE transport, or over "
        f"Streamable HTTP after a message of it). List over Streamable HTTP, where the answer is JSON whatever its "
        f"size{', or go on past it with data.nextCursor' if cursor else ''}; or ask the server's author for a "
        "smaller one", data)


def list_result(core: HandlerServices, request: RequestContext, table: _Table[Any], key: str,
                params: dict[str, Any], method: str, *, last: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """A registry list's answer (``tools/list``, ``resources/list``, ``resources/templates/list``,
    ``prompts/list``): ``{key: [...], nextCursor?}`` in registration order, a page of ``list_page_size`` entries
    (None: every one) fitted to the event's bytes when it goes as one (:func:`fitted_page`). ``last``: the server's
    own entries, after the table's on its last page (a page cut before them names the table's last entry, after
    which the next page holds them).

    Raises:
        InvalidParams: (-32602) a ``cursor`` that is not one this server issued, or whose entry is gone.
        InternalError: (-32603) one entry alone over the event's bound (:func:`fitted_page`).
    """
    entries, keys, start, more = table.page(request.version, core.list_page_size, params.get("cursor"))
    if not more and last:
        entries = [*entries, *last]
    return fitted_page(key, entries, more, lambda i: encode_cursor(keys[start + i]), method=method,
                       bound=event_bound(core, request))

