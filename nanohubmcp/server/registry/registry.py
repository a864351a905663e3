"""The registry of tools, resources, resource templates and prompts.

Duplicate policy: registering a name (or URI) again **replaces** the old component and emits
a change event: re-running a notebook cell that defines a tool must update it, not fail.
The maps are replaced, never mutated, so readers on the event loop need no lock while a
notebook cell registers from another thread.

Listing is in registration order, a page at a time (``handlers.list_pages``: by the server's
``list_page_size`` and by bytes, an entry's measured once a change, when a page first reads it); a page's cursor
names its last key and that key's registration number (a key removed and added again gets a new one and goes
last), sealed (``handlers.cursors``; MCP 2025-11-25, Server § Utilities § Pagination). A change replaces the map,
its numbers and the listings cached of them together (:class:`_Snapshot`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from ...errors import InvalidParams, ResourceNotFound
from ...protocol.uris import comparison_form
from ...schema.paths import echoed, echoed_names, uri_data
from ..wire.events import EventBus
from .components import Tool

if TYPE_CHECKING:
    from .prompts import Prompt
    from .resources import Resource, ResourceTemplate
    from .uri_template import Values

T = TypeVar("T")

LISTED_UNKNOWN = 5
"""Unknown query parameters a "Resource not found" names at most (and in ``data.unknown``); the rest are counted."""

_MEASURING = threading.Lock()
"""Held while an entry's size is stored and counted (:class:`_Sizes`): once per entry and change."""


class Listed:
    """A page of a table's listing (:meth:`_Table.page`): ``entries``, the page's, in registration order; ``keys``,
    the table's keys in order; ``numbers``, each key's registration number (a cursor names a key and its number);
    ``start``, the index of the page's first entry among them; ``more``, whether entries follow the page;
    ``sizes``, the bytes of each entry's JSON as ``measure`` gives them, each measured when first read (empty
    without one). ``entries`` are the table's cached ones: read them, never change them (the application's
    middleware gets copies: ``list_copies.detached``). (A plain class: a ``NamedTuple`` costs a served script's
    cold start.)"""

    __slots__ = ("entries", "keys", "more", "numbers", "sizes", "start")

    def __init__(self, entries: list[dict[str, Any]], keys: list[str], numbers: Mapping[str, int], start: int,
                 more: bool, sizes: Sequence[int]) -> None:
        self.entries, self.keys, self.numbers, self.start, self.more, self.sizes = (
            entries, keys, numbers, start, more, sizes)

    def position(self, i: int) -> tuple[str, int]:
        """Where the page's entry ``i`` stands: its key and registration number."""
        key = self.keys[self.start + i]
        return key, self.numbers[key]


class _Wire:
    """One version's listing entries, and the bytes of each entry's JSON once a page read it (None till then; one
    ``measure`` per table: ``list_pages.entry_bytes``), kept till the table changes."""

    __slots__ = ("entries", "sizes", "unmeasured")

    def __init__(self, entries: list[dict[str, Any]]) -> None:
        self.entries = entries
        self.sizes: list[int | None] = [None] * len(entries)
        self.unmeasured = len(entries)
        """How many ``sizes`` are None still."""


class _Sizes(Sequence[int]):
    """The bytes of the entries ``start..start+count`` of a :class:`_Wire`, each measured the first time it is
    read and kept there: a page reads only the entries it may hold (at most ``page_size`` and one more), not
    the table's."""

    __slots__ = ("_count", "_measure", "_start", "_wire")

    def __init__(self, wire: _Wire, start: int, count: int, measure: Callable[[dict[str, Any]], int]) -> None:
        self._wire, self._start, self._count, self._measure = wire, start, count, measure

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> list[int]: ...

    def __getitem__(self, index: int | slice) -> int | list[int]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._count))]
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError(index)
        at = self._start + index
        wire = self._wire
        size = wire.sizes[at]
        if size is None:
            size = self._measure(wire.entries[at])
            with _MEASURING:  # (counted once should two threads measure one entry)
                if wire.sizes[at] is None:
                    wire.sizes[at] = size
                    wire.unmeasured -= 1
        return size


class _Snapshot:
    """A table as one change left it: its name → record map, each key's registration number, and the listings
    built from them (per version), replaced together by the next change; a page built from a map thus lands in
    that map's cache, never a newer one's."""

    __slots__ = ("by_name", "numbers", "wires")

    def __init__(self, by_name: Mapping[str, Any], numbers: Mapping[str, int]) -> None:
        self.by_name, self.numbers = by_name, numbers
        self.wires: dict[str, _Wire] = {}


class _Table(Generic[T]):
    """One copy-on-write name → record map plus its change event."""

    def __init__(self, bus: EventBus, event: str) -> None:
        self.by_name: Mapping[str, T] = {}
        """The current name → record map, to read: a change replaces it, never alters it (a hot
        path reads ``table.by_name.get(name)``: no call of ours)."""
        self._bus = bus
        self._event = event
        self._lock = threading.Lock()
        self._now = _Snapshot(self.by_name, {})
        """``by_name``, each key's registration number and their listings, replaced together (a page reads them
        as one: a change on another thread meanwhile is the next page's)."""
        self._registered = 0
        self._trailing: frozenset[str] = frozenset()
        """Keys listed after every other (the server's own: :meth:`trail`)."""

    def put(self, key: str, item: T) -> None:
        """Register ``item`` as ``key``: in its place when the key is registered, else last (before the trailing
        keys, which move after it and so get new numbers: a cursor naming one of them is refused)."""
        with self._lock:
            items, numbers = self._now.by_name, self._now.numbers
            trailing = self._trailing
            if key in numbers:  # defined again: in its place (the server's own replaced by the author's: theirs)
                self._trailing = trailing - {key}
                items = {**items, key: item}
            elif not trailing:  # a new key (or one removed before) goes last, with a new number
                self._registered += 1
                numbers = {**numbers, key: self._registered}
                items = {**items, key: item}
            else:
                items = {**{k: v for k, v in items.items() if k not in trailing}, key: item,
                         **{k: v for k, v in items.items() if k in trailing}}
                moved = [key, *(k for k in items if k in trailing)]
                numbers = {**numbers, **{k: self._registered + i for i, k in enumerate(moved, 1)}}
                self._registered += len(moved)
            self.by_name = items
            self._now = _Snapshot(items, numbers)
        self._bus.emit(self._event, name=key)

    def trail(self, key: str) -> None:
        """List ``key`` (registered just now) last, and after every key registered later too: the server's own
        tools (``get_job_result``, ``cancel_job``) after the author's, so that the author's lead a first page."""
        with self._lock:
            items, numbers = self._now.by_name, self._now.numbers
            if key not in items:
                return
            self._registered += 1
            items = {**{k: v for k, v in items.items() if k != key}, key: items[key]}
            self.by_name = items
            self._now = _Snapshot(items, {**numbers, key: self._registered})
            self._trailing = self._trailing | {key}

    def remove(self, key: str) -> bool:
        with self._lock:
            if key not in self.by_name:
                return False
            items = dict(self.by_name)
            del items[key]
            numbers = dict(self._now.numbers)
            del numbers[key]
            self._trailing = self._trailing - {key}
            self.by_name = items
            self._now = _Snapshot(items, numbers)
        self._bus.emit(self._event, name=key)
        return True

    def get(self, key: str) -> T | None:
        return self.by_name.get(key)

    def values(self) -> list[T]:
        return list(self.by_name.values())

    def __len__(self) -> int:
        return len(self.by_name)

    def __contains__(self, key: object) -> bool:
        return key in self.by_name

    def page(self, version: str, page_size: int | None, after: tuple[str, int] | None, *,
             measure: Callable[[dict[str, Any]], int] | None = None) -> Listed:
        """A page of listing entries for ``version`` (cached per version): the entries after the one ``after``
        names (its key and registration number, :meth:`Listed.position`; None: from the first), at most
        ``page_size`` of them (None: every one), with the bytes ``measure`` gives of each (``Listed.sizes``: an
        entry is measured when it is first read, once per version and change).

        Raises:
            InvalidParams: (-32602) ``after`` names an entry that is gone, or was registered again since (removed
                and added: it moved to the end, so going on after it would skip the entries between).
        """
        now = self._now  # one read: the map, its numbers and its cache are of one change whatever a thread puts
        items, numbers = now.by_name, now.numbers
        cached = now.wires.get(version)
        if cached is None:
            cached = now.wires[version] = _Wire([item.to_wire(version) for item in items.values()])
        keys = list(items)
        start = 0
        if after is not None:
            last, number = after
            if numbers.get(last) != number:
                raise InvalidParams("Invalid cursor: the entry it goes on after was removed or registered again "
                                    "since; list again without a cursor")
            start = keys.index(last) + 1
        end = len(keys) if not page_size else min(start + page_size, len(keys))
        whole = not start and end >= len(keys)
        entries = cached.entries if whole else cached.entries[start:end]
        sizes: Sequence[int] = ()
        if measure is not None and cached.unmeasured:
            sizes = _Sizes(cached, start, end - start, measure)
        elif measure is not None:  # every entry measured: the plain list (no call per entry)
            sizes = cached.sizes if whole else cached.sizes[start:end]  # type: ignore[assignment]
        return Listed(entries, keys, numbers, start, end < len(keys), sizes)


class Registry:
    """Tools, resources, resource templates and prompts of one server.

    Events emitted on the server's :class:`EventBus`: ``tools_changed``,
    ``resources_changed`` (also for templates) and ``prompts_changed``, each with ``name``.
    """

    def __init__(self, bus: EventBus) -> None:
        self.tools: _Table[Tool] = _Table(bus, "tools_changed")
        self.resources: _Table[Resource] = _Table(bus, "resources_changed")
        self.templates: _Table[ResourceTemplate] = _Table(bus, "resources_changed")
        self.prompts: _Table[Prompt] = _Table(bus, "prompts_changed")
        self._folded: tuple[Mapping[str, Resource], dict[str, Resource]] = ({}, {})

    def add_tool(self, tool: Tool) -> None:
        """Register (or replace) ``tool``."""
        self.tools.put(tool.name, tool)

    def add_resource(self, resource: Resource | ResourceTemplate) -> None:
        """Register (or replace) a resource or template, keyed by its URI (template)."""
        from .resources import ResourceTemplate  # loaded with the first resource: no cost here

        if isinstance(resource, ResourceTemplate):
            self.templates.put(resource.uri_template, resource)
        else:
            self.resources.put(resource.uri, resource)

    def add_prompt(self, prompt: Prompt) -> None:
        """Register (or replace) ``prompt``."""
        self.prompts.put(prompt.name, prompt)

    def find_resource(self, uri: str) -> tuple[Resource | ResourceTemplate, Values]:
        """Resolve a URI: exact resource first, then the most specific matching template (most
        literal text, then fewest variables that may span ``/``, then fewest variables). The scheme
        is compared without regard to ASCII case (``CONFIG://lab`` finds ``config://lab``, RFC 3986
        § 3.1) and percent-escapes as RFC 3986 § 6.2.2 compares them (``data://%6Cab`` finds
        ``data://lab``; ``%2f`` is ``%2F``, not ``/``); the rest of the URI exactly
        (:func:`~nanohubmcp.protocol.uris.comparison_form`).

        Raises:
            ResourceNotFound: nothing answers ``uri`` (``data.uri`` names it; when a template would
                match but for query parameters it does not name, the message and ``data.unknown``
                name them).
        """
        exact = self.resources.by_name.get(uri)
        if exact is not None:
            return exact, {}
        folded = comparison_form(uri)  # once here, so no template's regex folds case or escapes
        exact = self._scheme_folded().get(folded)
        if exact is not None:
            return exact, {}
        best: tuple[ResourceTemplate, Values] | None = None
        best_key: tuple[int, int, int] | None = None
        for template in self.templates.by_name.values():
            compiled = template.compiled
            values = compiled.match(folded)
            if values is not None and (best_key is None or compiled.rank > best_key):
                best, best_key = (template, values), compiled.rank
        if best is None:
            raise self._not_found(uri, folded)
        return best

    def _scheme_folded(self) -> Mapping[str, Resource]:
        """The fixed resources keyed by the :func:`comparison_form` of their URI (made again after a change)."""
        table = self.resources.by_name
        made = self._folded
        if made[0] is not table:
            made = self._folded = (table, {comparison_form(uri): item for uri, item in table.items()})
        return made[1]

    def _split_segment(self, uri: str, folded: str) -> ResourceNotFound | None:
        """Not found because a one-segment variable of the most specific template fitting ``uri`` would hold an
        escaped ``/`` or ``\\`` (``%2F``, ``%5C``), NUL, or be ``.``/``..``: the message says so, and what to use."""
        near = [(t.compiled.rank, t.compiled, split) for t in self.templates.by_name.values()
                if (split := t.compiled.split_segment(folded))]
        if not near:
            return None
        _, compiled, (name, value) = max(near, key=lambda n: n[0])
        why = ("cannot be . or .." if value in (".", "..")
               else "cannot hold an escaped / or \\ (%2F, %5C) or NUL (%00)")
        return ResourceNotFound(
            f"Resource not found: {echoed(uri)} (the template '{compiled.template}' would take it, but its one-segment "
            f"variable {{{name}}} {why}, so that a function joining it to a directory stays in that directory; "
            f"a variable that may hold / is written {{+{name}}})",
            uri_data(uri, uri_template=compiled.template, variable=name))

    def _not_found(self, uri: str, folded: str) -> ResourceNotFound:
        # The nearest template: fewest parameters it does not name, then the most specific.
        near = [(-len(unknown), t.compiled.rank, t.compiled, unknown) for t in self.templates.by_name.values()
                if (unknown := t.compiled.unknown_query(folded))] if "?" in folded else []
        if not near:
            return self._split_segment(uri, folded) or ResourceNotFound(f"Resource not found: {echoed(uri)}",
                                                                        uri_data(uri))
        *_, compiled, unknown = max(near, key=lambda n: n[:2])
        return ResourceNotFound(
            f"Resource not found: {echoed(uri)} (the template '{compiled.template}' takes the query parameter(s) "
            f"{', '.join(compiled.query_names)}, not {echoed_names(unknown, LISTED_UNKNOWN)})",
            uri_data(uri, uri_template=compiled.template, unknown=[echoed(name) for name in unknown[:LISTED_UNKNOWN]]))

