"""The result cache layer of the call pipeline: a tool registered with ``cache=True`` answers a
repeated call from its stored result without running.

The key is the SHA-256 of the tool's own code (:func:`.code_facts.key_code`: its compiled code, not its source
text, so a comment edited in it is the same key; for a tool whose code is files, a
Rappture program or a Sim2L notebook, of the files as they are at the call: an edited program is another key,
never answered by the old program's results), what that code reaches by global name — helper functions,
classes and plain constants (see :mod:`.code_reach`) —, its arguments as canonical JSON (:mod:`.cache_key`;
after the input schema's checks and defaults; for a tool that says what values it runs with,
:data:`.tool_options.RUN_VALUES` — a Rappture tool's numbers in their declared units — those values, so ``"300
K"`` and ``"26.85C"`` are one call), the protocol version and route (which shape the result) and, unless the
tool was registered with ``cache="shared"``, who asks (the principal, else the session): one caller's results
are never another's. A hit's ``_meta`` says ``{"io.nanohub/cache": {"hit": true}}`` (``"coalesced": true``
when it waited for an identical call's run); a miss says ``"hit": false`` (and ``"stored": false`` when the
result is too large to keep; with ``"reason"``: :data:`LINKED` when it was too large to inline, answered as a link,
or when the tool reaches more than :data:`.code_reach.MAX_REACHED` objects: no key covers them all, so none is
used). Identical calls arriving while the first runs wait for it
and share its result (one run). Only complete results are stored: an ``isError`` result, a job handle, an
``input_required`` step, a protocol error or a middleware's own answer (the tool never ran) is never kept; nor
is a call whose arguments JSON has no form for (NaN, a set, an object: only ``server.call`` passes them),
which runs uncached. Nor is the result of a call during which what its key was made of changed — a global name
its code reaches bound anew (a data cell run again while it ran), the tool registered again, its files edited:
the key describes what the call would read when it began, the tool read what was bound as it ran; the names
are compared by identity when it ends (:func:`.code_reach.reached_as`). A tool registered again in the same
process (a notebook cell run again) drops its entries.

An entry keeps the URI of the provenance record of the run that produced it (in the stored
result's ``_meta``, as that run answered it); a hit moves it off the wire into the hit's own
record (``cached_from``, through :data:`.handover.CACHED_FROM`). A ``cache="shared"`` tool's entry also keeps
a digest of its producer's owner key (:data:`PRODUCER_META`): a hit by another caller (another principal,
session or none) names no record in ``cached_from`` (null: the producing record is not the reader's to read,
nor is its id to be known); the hit's record's ``result_digest`` is the producing run's all the same.
An entry is stored as its caller's (its owner: :meth:`.cache_store.ResultCache.put`), a shared tool's as its
producer's: it counts against that caller's share of the cache.

A repeated call is first looked up in this process's front (:mod:`.cache_front`) by the call as
received, without the schema checks, the canonical JSON and the hash of the store's key, and
without reading the store; only what the front does not hold (or holds for longer than it may
trust it) takes the path above, which then fills the front.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from typing import TYPE_CHECKING, Any, Protocol

from ...errors import InvalidArguments
from ...protocol.nesting import NestedTooDeep
from ...schema import CheckPending
from ..asks.context_asks import ASKED_CLIENT
from ..jobs.record import PROVENANCE_META as META_KEY
from ..results import RESULT_URI_PREFIX
from ..results.owners import owner_for, owner_of
from ..wire.request import ANSWERED_BY_LAYER
from ..wire.trace_context import SPAN
from . import code_facts, code_reach
from .cache_front import arguments_key
from .cache_key import NoJSONForm, canonical
from .cache_store import MemoryCache, ResultCache, encode
from .handover import CACHE_META, CACHED_FROM
from .rows import URI_PREFIX as RECORD_PREFIX
from .tool_options import CACHE, CACHE_TTL, RUN_VALUES, SHARED

if TYPE_CHECKING:
    from ..middleware import CallNext, Middleware, Request
    from ..registry.components import Tool

log = logging.getLogger("nanohubmcp.cache")

SPAN_HIT = "nanohub.cache.hit"
"""The attribute a traced call's SERVER span gets when the cache answered it."""

TOO_FAR = f"reaches more than {code_reach.MAX_REACHED} functions, classes and values"
"""The ``reason`` of an uncached call's ``_meta`` when its tool reaches more than the key can cover."""
LINKED = ("too large to inline: answered as a link (a resource_link), which is the caller's own and lasts "
          "job_ttl_seconds, so it is not cached")
"""The ``reason`` of a miss whose result was too large to inline (docs/how-to/cache.md)."""
_TOO_FAR_LOGGED = "cache_too_far_logged"
"""``Tool.extra`` key: this registration's warning was logged."""

PRODUCER_META = "io.nanohub/cache-producer"
"""The stored ``_meta`` key of a shared tool's entry holding :func:`producer_digest` of the caller whose run
produced it (never on the wire: a hit takes it off)."""
MAX_COALESCING = 1024
"""Distinct calls waited on at once at most; more run on their own (each key is client input)."""


class ToolLookup(Protocol):
    def get(self, name: str) -> Tool | None: ...


class CacheLayer:
    """The cache layer over ``cache`` for the registry's ``tools``; ``runs`` counts calls that
    ran the tool (misses)."""

    def __init__(self, cache: ResultCache, tools: ToolLookup) -> None:
        self.cache = cache
        self.tools = tools
        self.runs = 0
        self.hits = 0
        self._running: dict[str, asyncio.Future[str | None]] = {}

    def layer(self) -> Middleware:
        front = self.cache.front

        async def result_cache(request: Request, call_next: CallNext) -> dict[str, Any]:
            if request.method != "tools/call":
                return await call_next(request)
            tool = request.tool
            if tool is None or not tool.extra.get(CACHE) or tool.background:
                return await call_next(request)
            code = code_facts.key_code(tool)  # a tool whose code is files: as they are now (a stat each)
            if request.context.large:  # its keys made, and its arguments checked, on a worker thread
                reach, received, key = await asyncio.to_thread(self._keys, request, tool, code)
                if not reach.complete:
                    return await self._uncached(request, call_next, tool)
                held = front.get(received, tool, time.time()) if received is not None else None
                if held is not None:
                    self.hits += 1
                    return _marked(held, request, hit=True)
                if key is None:
                    return await call_next(request)
                return await self._serve(request, call_next, tool, key, received, code, reach)
            # This process's front first: the call as received, no schema checks, hash or store read.
            reach = code_reach.reach(tool)  # the helpers and constants it reads, as bound now
            if not reach.complete:
                return await self._uncached(request, call_next, tool)
            received = _received(request, tool, code, reach.digest)
            now = time.time()
            if received is not None:
                held = front.get(received, tool, now)
                if held is not None:
                    self.hits += 1
                    return _marked(held, request, hit=True)
            try:
                key = self._key(request, tool, code, reach.digest)
            except CheckPending as pending:  # the run values need pint's registry: loaded off the loop
                await asyncio.to_thread(pending.wait)
                try:
                    key = self._key(request, tool, code, reach.digest)
                except CheckPending:  # (its wait loads it: not again) run uncached rather than block
                    key = None
            if key is None:
                return await call_next(request)  # arguments the tool refuses: the handler says why
            return await self._serve(request, call_next, tool, key, received, code, reach)

        return result_cache

    def _keys(
        self, request: Request, tool: Tool, code: str,
    ) -> tuple[code_reach.Reach, tuple[Any, ...] | None, str | None]:
        """On a worker thread, for a large call: the tool's reach, its front's key and its store's key
        (None: not cached), loading first what the tool's run values need."""
        reach = code_reach.reach(tool)
        received = _received(request, tool, code, reach.digest)
        try:
            return reach, received, self._key(request, tool, code, reach.digest)
        except CheckPending as pending:
            pending.wait()
        try:
            return reach, received, self._key(request, tool, code, reach.digest)
        except CheckPending:  # (its wait loaded it: not again) run uncached
            return reach, received, None

    def _key(self, request: Request, tool: Tool, code: str, reached: str) -> str | None:
        """The store's key of the call (``code``: the tool's code hash now; ``reached``: the digest of
        what its code reaches, :func:`.code_reach.reach`); None: not cached (arguments the handler
        refuses, or no JSON form). Raises ``CheckPending`` when the tool's run values must first load
        something."""
        arguments = request.params.get("arguments")
        try:
            checked = tool.validator.validate(arguments if isinstance(arguments, dict) else {})
        except InvalidArguments:  # the handler refuses them (a CheckPending goes up: loaded, then asked again)
            return None
        run_values = tool.extra.get(RUN_VALUES)
        properties = tool.input_schema.get("properties")
        if run_values is not None:  # what the tool runs with (its defaults filled in): "300 K" is 300
            try:
                checked = run_values(checked)
            except InvalidArguments:
                return None
        elif isinstance(properties, dict):  # a default given or left out is the same call
            defaults = {n: p["default"] for n, p in properties.items() if isinstance(p, dict) and "default" in p}
            checked = {**defaults, **checked}
        who = "" if tool.extra.get(CACHE) == SHARED else (owner_of(request.context) or "")
        digest = hashlib.sha256(code.encode())
        digest.update(reached.encode())  # the helpers and constants it reads
        digest.update(b"\0" + tool.name.encode())  # two tools of one factory share their code
        try:
            arguments = canonical(checked)
        except NestedTooDeep:  # (only from server.call: a client's JSON is bounded when parsed)
            return None  # not cached: the call runs as it would uncached
        except NoJSONForm as exc:  # (server.call only) NaN, a set, an object: its text is no key
            log.debug("%s: not cached: an argument has no JSON form (%s)", tool.name, exc)
            return None
        digest.update(b"\0" + arguments + b"\0" + who.encode())
        # A result's shape depends on the protocol version (structuredContent) and the route (REST).
        digest.update(f"\0{request.protocol_version}\0{int(request.context.data_only)}".encode())
        return digest.hexdigest()

    async def _serve(
        self, request: Request, call_next: CallNext, tool: Tool, key: str, received: tuple[Any, ...] | None,
        code: str, reach: code_reach.Reach,
    ) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        ttl = tool.extra.get(CACHE_TTL)  # the tool's ttl now: an entry stored under a longer one is judged by it
        stored = self.cache.read(key, ttl)  # one indexed row: cheaper on the loop than a thread hop
        if stored is not None:
            self.hits += 1
            text, expires = stored
            result = json.loads(text)  # a copy of the caller's own
            if received is not None:  # before marking: the front holds the store's answer
                self.cache.front.put(received, key, tool, tool.name, text, result, expires, time.time(), ttl=ttl)
            return _marked(result, request, hit=True)
        running = self._running.get(key)
        if running is not None:
            shared = await asyncio.shield(running)
            if shared is not None:
                self.hits += 1
                return _marked(json.loads(shared), request, hit=True, coalesced=True)
            # The first call's result was not kept (failed, cancelled, asked the client): run this one.
        waiting: asyncio.Future[str | None] | None = None
        if len(self._running) < MAX_COALESCING and key not in self._running:
            waiting = self._running[key] = loop.create_future()
        kept: str | None = None
        clears = self.cache.clears(tool.name)
        try:
            self.runs += 1
            result = await call_next(request)
            if _keepable(result, request):
                if _linked(result):  # a large result's link: owned by this caller, readable for job_ttl_seconds
                    result.setdefault("_meta", {})[CACHE_META] = {"hit": False, "stored": False, "reason": LINKED}
                    return result
                if self.cache.clears(tool.name) != clears:  # its (or every tool's) entries cleared while it
                    # ran: the user said they were of data or code the key does not cover; it may have read the old
                    log.debug("%s: not cached: the cache was cleared during the call", tool.name)
                elif self._read_as_keyed(tool, code, reach):
                    kept = await self._keep(result, request, tool, key, code)
                else:  # the key says what the call would read when it began, the tool read what was bound
                    # as it ran: a result of other data or code must never answer for this key
                    log.debug("%s: not cached: a name its key covers was bound anew during the call", tool.name)
                result.setdefault("_meta", {})[CACHE_META] = (
                    {"hit": False} if kept is not None else {"hit": False, "stored": False}
                )
            return result
        finally:
            if waiting is not None:
                self._running.pop(key, None)
                if not waiting.done():
                    waiting.set_result(kept)

    async def _uncached(self, request: Request, call_next: CallNext, tool: Tool) -> dict[str, Any]:
        """A call of a tool whose code reaches more than :data:`.code_reach.MAX_REACHED` objects: its
        reach leaves some out, so no key describes what it reads. It runs, nothing is read or kept, and
        its result says why (logged once per registration)."""
        if not tool.extra.get(_TOO_FAR_LOGGED):
            tool.extra[_TOO_FAR_LOGGED] = True
            log.warning("%s: not cached: its code %s, more than its cache key can cover", tool.name, TOO_FAR)
        self.runs += 1
        result = await call_next(request)
        if _keepable(result, request):
            result.setdefault("_meta", {})[CACHE_META] = {"hit": False, "stored": False, "reason": TOO_FAR}
        return result

    async def _keep(self, result: dict[str, Any], request: Request, tool: Tool, key: str, code: str) -> str | None:
        """Store ``result`` under ``key``; the text stored (each hit and waiter parses its own copy),
        or None when it was not kept (too large, or the store failed)."""
        entry = {k: v for k, v in result.items() if k != "_meta"}
        meta = {k: v for k, v in (result.get("_meta") or {}).items() if not k.startswith("io.nanohub/")}
        if request.context.provenance_id is not None:  # the record of this run: a hit's record names it
            meta[META_KEY] = RECORD_PREFIX + request.context.provenance_id
        owner = owner_of(request.context)  # (a shared tool's entry: its producer's, counted in its share)
        if tool.extra.get(CACHE) == SHARED and META_KEY in meta:
            meta[PRODUCER_META] = producer_digest(owner)  # a hit names the record to its producer only
        if meta:
            entry["_meta"] = meta
        ttl = tool.extra.get(CACHE_TTL)
        try:
            text = encode(entry)
            if self._on_disk():
                loop = asyncio.get_running_loop()
                kept_it = await loop.run_in_executor(None, self.cache.put, key, tool.name, code, text, ttl, owner)
            else:
                kept_it = self.cache.put(key, tool.name, code, text, ttl, owner)
        except Exception:  # keeping a result must never cost the caller its answer
            log.exception("could not keep a result of %s in the cache", tool.name)
            return None
        return text if kept_it else None

    def _read_as_keyed(self, tool: Tool, code: str, reach: code_reach.Reach) -> bool:
        """After a call: whether what its key was made of is still in place — the tool still the one
        registered, its code (for a tool whose code is files: the files) the same, and what its code
        reaches by global name the same (:func:`.code_reach.reached_as`: the same objects, compared by
        identity; only after a name was bound anew are the values hashed again)."""
        if self.tools.get(tool.name) is not tool or code_facts.key_code(tool) != code:
            return False
        return code_reach.reached_as(tool, reach)

    def _on_disk(self) -> bool:
        return not isinstance(self.cache.backend, MemoryCache)


def _received(request: Request, tool: Tool, code: str, reached: str) -> tuple[Any, ...] | None:
    """The front's key of a call: as the store's key, with the arguments as received (None when
    they cannot be a key); ``code`` is the tool's code hash now (the front also checks the entry was
    made for this registration), ``reached`` the digest of what its code reaches now (a helper or
    constant bound anew: another key, as the store's)."""
    arguments = arguments_key(request.params.get("arguments"))
    if arguments is None:
        return None
    context = request.context  # (its fields read directly: a hit's path, no property or getattr on the way)
    who = "" if tool.extra.get(CACHE) == SHARED else (owner_for(context.principal, context.session) or "")
    return tool.name, who, context.version, context.data_only, reached, code, arguments


def producer_digest(owner: str | None) -> str:
    """What a shared entry keeps of the owner key ``owner`` of the caller whose run produced it (SHA-256 hex,
    its first 32 digits; of no owner: of the empty text): compared with a hit's caller's, never shown."""
    return hashlib.sha256((owner or "").encode()).hexdigest()[:32]


def _keepable(result: dict[str, Any], request: Request) -> bool:
    if not isinstance(result, dict):
        return False  # not a result: the dispatcher names the middleware that answered it
    if result.get("isError") or request.context.job_id is not None:
        return False
    if request.context.slots.get(ANSWERED_BY_LAYER):
        return False  # a middleware's own answer, not the tool's result
    if request.context.cancelled.is_set():
        return False  # what a cancelled call returned is not its result (and waiters run their own)
    if request.context.get(ASKED_CLIENT):
        return False  # the result depends on what the client answered, not only on the arguments
    return result.get("resultType", "complete") == "complete" and "task" not in result


def _linked(result: dict[str, Any]) -> bool:
    """Whether ``result`` holds a kept result's link (too large to inline): never cached (:data:`LINKED`)."""
    return any(isinstance(block, dict) and str(block.get("uri", "")).startswith(RESULT_URI_PREFIX)
               for block in result.get("content") or ())


def _marked(result: dict[str, Any], request: Request, *, hit: bool, coalesced: bool = False) -> dict[str, Any]:
    """``result`` (a copy of the caller's own) marked as the cache's answer (and its trace span, when traced)."""
    info: dict[str, Any] = {"hit": hit}
    if coalesced:
        info["coalesced"] = True
    slots = request.context.slots
    span = slots.get(SPAN)
    if span is not None:
        span.set_attribute(SPAN_HIT, True)
    meta = result.setdefault("_meta", {})
    produced = meta.pop(META_KEY, None)  # the producing run's record: for this call's record, not the wire
    producer = meta.pop(PRODUCER_META, None)
    if produced is not None and (request.tool is None or request.tool.extra.get(CACHE) != SHARED
                                 or producer == producer_digest(owner_of(request.context))):
        slots[CACHED_FROM] = produced  # (another caller's run of a shared tool: not named, see the module)
    meta[CACHE_META] = info
    return result
