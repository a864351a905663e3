"""A ``*/list`` answer's page (MCP 2025-11-25, Server § Utilities § Pagination: the page size is the server's, the
cursor opaque): at most :func:`page_count` entries and at most :func:`page_bound`'s bytes of JSON, whatever the
transport; ``nextCursor`` names the last entry sent (sealed: :mod:`.cursors`), and the client lists on from there
until none is given.

By count: ``MCPServer(list_page_size=N)`` entries, every list alike. Left at None, a registry list (``tools/list``,
``resources/list``, ``resources/templates/list``, ``prompts/list``: what the server's author registered) is one page
by count, and ``tasks/list`` (what clients made: up to ``max_jobs_per_owner``, 1,000, a principal's) pages of
:data:`TASKS_PAGE_SIZE` (100), so one page reads at most 101 records (a page's and one to tell that more follow).

By bytes: the server's ``max_event_bytes`` (default 1 MiB, what the official ``mcp`` client reads in one SSE event,
:mod:`~...protocol.client_event_cap`; None: :data:`LIST_PAGE_BYTES`, the same 1 MiB) of JSON a page, less
:data:`~...protocol.client_event_cap.EVENT_ENVELOPE_BYTES`: the page ends before the entry that would take it over
(:func:`fitted_page`). So 1,000 failed tasks each with a 65,536-character status message (~65 MB of JSON) come in
pages of ~15, each under a MiB, over Streamable HTTP's JSON bodies as over legacy SSE's events; and a page is the
same size whichever transport carries it.

One entry alone over the bound (a tool whose schema or description is over a MiB): as a JSON body (Streamable HTTP,
nothing sent before it; stdio; in memory) it is a page of its own, sent whole, as a JSON answer of any size is; as
one SSE event (legacy SSE, or Streamable HTTP once a message went before the answer), which a client drops past
``max_event_bytes`` (over legacy SSE with its session), the page holding it is the JSON-RPC error -32603 naming it,
its size, and the cursor past it (``data.nextCursor``). A ``tasks/list`` entry is never that large: a task's status
message is cut at 65,536 characters (:data:`~...errors.MAX_NOTIFIED_CHARS`, at most ~400 KB as JSON).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

from ...errors import InternalError, InvalidParams
from ...protocol import jsonenc
from ...protocol.client_event_cap import CLIENT_EVENT_BYTES, EVENT_ENVELOPE_BYTES, said_bound
from ..results.event_bound import goes_as_event
from ..wire.request import RequestContext
from .cursors import seal_of

if TYPE_CHECKING:
    from ..registry.registry import _Table
    from .host import ListHost

__all__ = ["LIST_PAGE_BYTES", "TASKS_PAGE_SIZE", "PageBound", "entry_bytes", "fitted_page", "list_result",
           "page_bound", "page_count"]

TASKS_PAGE_SIZE: Final = 100
"""Tasks a ``tasks/list`` page holds when ``list_page_size`` is None: a principal's up to 1,000 tasks in ten pages,
each reading at most 101 records (the common API default, GitHub's and Stripe's: 100 at most a page)."""
LIST_PAGE_BYTES: Final = CLIENT_EVENT_BYTES
"""Bytes of JSON a list page is held to when ``max_event_bytes`` is None (no bound on an event): 1 MiB, what the
official client reads in one event, so a page is the same on every transport."""

_LABELS = ("uriTemplate", "uri", "taskId", "name")
"""The key naming a list entry in a refusal: a template's, a resource's, a task's, a tool's or prompt's."""


@dataclasses.dataclass(frozen=True, slots=True)
class PageBound:
    """What one list page may weigh: ``limit`` bytes of JSON (less the event's envelope, as an event's answer), and
    whether one entry alone over it is refused (``hard``: the answer goes as one SSE event, which a client drops
    past the server's ``max_event_bytes``) or sent whole as a page of its own (a JSON body)."""

    limit: int
    hard: bool


def page_bound(core: ListHost, request: RequestContext) -> PageBound:
    """The bound on ``request``'s list page: the server's ``max_event_bytes`` (None: :data:`LIST_PAGE_BYTES`), hard
    when the answer goes as one SSE event under it (:func:`~..results.event_bound.goes_as_event`)."""
    bound = core.result_options.max_event_bytes
    if bound is None:
        return PageBound(LIST_PAGE_BYTES, hard=False)
    return PageBound(bound, hard=goes_as_event(request))


def page_count(core: ListHost, *, tasks: bool = False) -> int | None:
    """Entries a page holds at most: the server's ``list_page_size``; None (every one, to the bytes' bound) for a
    registry list and :data:`TASKS_PAGE_SIZE` for ``tasks/list`` (``tasks``) when it is None."""
    return core.list_page_size or (TASKS_PAGE_SIZE if tasks else None)


def entry_bytes(entry: dict[str, Any]) -> int:
    """Bytes of ``entry``'s JSON on the wire (UTF-8)."""
    return _bytes(jsonenc.dumps(entry))


def fitted_page(key: str, entries: Sequence[dict[str, Any]], more: bool, cursor_after: Callable[[int], str], *,
                method: str, bound: PageBound, sizes: Sequence[int] = ()) -> dict[str, Any]:
    """``{key: entries[:n], nextCursor?}``: every entry (``n = len(entries)``) when the answer is within
    ``bound.limit`` bytes of JSON less :data:`~...protocol.client_event_cap.EVENT_ENVELOPE_BYTES`, else the most
    leading entries that are, ``nextCursor`` then naming the last of them; a first entry alone over it is a page of
    its own unless ``bound.hard``. ``more``: entries follow this page (``nextCursor`` is given even when every entry
    fits); ``cursor_after(i)``: the cursor naming entry ``i``; ``sizes``: the bytes of the leading entries' JSON when
    known (:func:`entry_bytes`; the others are measured here).

    Raises:
        InternalError: (-32603) the first entry alone is over a hard bound; ``data``: ``{"entry", "bytes", "limit",
            "nextCursor"?}`` (the cursor past it, when entries follow it).
    """
    count, known = len(entries), len(sizes)
    limit = bound.limit - EVENT_ENVELOPE_BYTES
    totals = [len(key) + 7]  # {"key":[]}, then with each entry: the page's bytes before its cursor
    for i, entry in enumerate(entries):
        totals.append(totals[-1] + (sizes[i] if i < known else entry_bytes(entry)) + (1 if i else 0))
        if totals[-1] > limit:
            break
    for n in range(len(totals) - 1, 0, -1):  # the most leading entries that fit with the cursor after them
        if totals[n] > limit:
            continue
        cursor = cursor_after(n - 1) if more or n < count else None
        if totals[n] + (len(cursor) + 16 if cursor else 0) <= limit:  # ,"nextCursor":"…"
            return _page(key, list(entries) if n == count else list(entries[:n]), cursor)
    if not count:
        return _page(key, [], None)
    cursor = cursor_after(0) if more or count > 1 else None
    if bound.hard:
        raise _too_large(entries[0], totals[1], bound.limit, method, cursor)
    return _page(key, [entries[0]], cursor)  # alone over the bound: whole, as a JSON answer of any size is


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


def list_result(core: ListHost, request: RequestContext, table: _Table[Any], key: str,
                params: dict[str, Any], method: str, *, last: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """A registry list's answer (``tools/list``, ``resources/list``, ``resources/templates/list``,
    ``prompts/list``): ``{key: [...], nextCursor?}`` in registration order, a page of ``list_page_size`` entries
    (None: every one) within the page's bytes (:func:`page_bound`, :func:`fitted_page`; each entry's measured once
    per change of the table). ``last``: the server's own entries, after the table's on its last page (a page cut
    before them names the table's last entry, after which the next page holds them).

    Raises:
        InvalidParams: (-32602) a ``cursor`` that is not one this server issued for ``method`` (:mod:`.cursors`),
            or whose entry is gone or was registered again since (removed and added: it moved to the end).
        InternalError: (-32603) one entry alone over the bound of an answer sent as one SSE event (:func:`fitted_page`).
    """
    cursor = params.get("cursor")
    after = None if cursor is None else _registry_position(seal_of(core.request_codec).open(method, cursor))
    listed = table.page(request.version, page_count(core), after, measure=entry_bytes)
    entries = listed.entries
    if not listed.more and last:
        entries = [*entries, *last]
    return fitted_page(key, entries, listed.more, lambda i: _registry_cursor(core, method, listed.position(i)),
                       method=method, bound=page_bound(core, request), sizes=listed.sizes)


def _registry_cursor(core: ListHost, method: str, position: tuple[str, int]) -> str:
    key, number = position
    return seal_of(core.request_codec).seal(method, f"{number}/{key}")


def _registry_position(opened: str) -> tuple[str, int]:
    number, _, key = opened.partition("/")
    if not number.isdigit():  # (a sealed cursor of this list is always so)
        raise InvalidParams("Invalid cursor: it is not a cursor of this list; list again without a cursor")
    return key, int(number)
