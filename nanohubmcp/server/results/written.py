"""An answer's JSON text written once: measured for one SSE event, then copied onto the wire.

An answer that goes as one SSE event (:mod:`.event_bound`) is written as JSON to learn its size before it is sent
(a ``tools/call``'s, a ``tasks/result``'s, a ``resources/read``'s, a ``prompts/get``'s). That text is kept with
the request (:data:`WRITTEN`, a :class:`Written`) and the dispatcher puts it into the response as an
:class:`~nanohubmcp.protocol.encoded.Encoded` (:func:`as_sent`), whose text the encoder copies: the answer is
written once, and the bytes on the wire are those writing it again would make.

Between the measure and the response the call pipeline's built-in layers may add to the result: the provenance
record's URI, the cache's note and a 2026-07-28 answer's ``resultType`` and server identity, each a member added
after the others or a change inside ``_meta``. A :class:`Written` knows the members it wrote (each value by
identity) and ``_meta``'s text: members added after them are written then and joined to the kept text; any other
change (a member replaced, removed or reordered, ``_meta`` changed) and the result is written again, as if nothing
were kept. The application's layers may change anything anywhere in it: the pipeline drops the text before they
see the result (:mod:`~nanohubmcp.server.pipeline`).
"""

from __future__ import annotations

from typing import Any, Final

from ...protocol import jsonenc
from ...protocol.encoded import Encoded
from ..wire.request import RequestContext, Slot

__all__ = ["KEPT_FROM", "WRITTEN", "Written", "as_sent", "keep_written", "written_of"]

KEPT_FROM: Final = 512
"""The fewest characters of an answer's text kept to be copied: a shorter one is written again, which costs less
than carrying it (a result's JSON of some 200 characters is even; ``bench/findings.md``, issue 28)."""


class Written:
    """``value`` (a result dict) and ``text``, its JSON as :func:`~nanohubmcp.protocol.jsonenc.dumps` wrote it, with
    what :meth:`now` checks: its members (each value by identity) and its ``_meta``'s text. (A member changed inside,
    other than ``_meta``, goes unseen: what may change the result after it was written changes ``_meta`` only.)"""

    __slots__ = ("items", "meta", "text", "value")

    def __init__(self, value: dict[str, Any], text: str) -> None:
        self.value = value
        self.text = text
        self.items = tuple(value.items())
        meta = value.get("_meta")
        self.meta = None if meta is None else jsonenc.dumps(meta)

    def now(self, value: dict[str, Any]) -> str | None:
        """The JSON text of ``value`` as it stands (what ``jsonenc.dumps(value)`` writes), when its first members
        are the ones written, in order (the result written, or a copy: ``{**result, "_meta": ...}``), any after
        them added since (written now, joined to the text); else None (write it again).

        Raises:
            TypeError, ValueError: an added member JSON cannot hold (as ``jsonenc.dumps``).
        """
        items = self.items
        if len(value) < len(items) or not items:
            return None
        now = iter(value.items())
        # (items first: once they end, what follows stays in now)
        for (key, member), (key_now, member_now) in zip(items, now, strict=False):
            if member_now is not member or key_now != key:
                return None
        if self.meta is not None and jsonenc.dumps(value["_meta"]) != self.meta:
            return None
        added = list(now)
        if not added:
            return self.text
        return f"{self.text[:-1]},{jsonenc.dumps(dict(added))[1:]}"  # (its members as the whole's writing writes them)

    def sent(self, value: dict[str, Any]) -> Any:
        """``value`` as a message carries it: an :class:`~nanohubmcp.protocol.encoded.Encoded` of its text when
        :meth:`now` has it (JSON can write what was added), else ``value`` itself (written as any value)."""
        try:
            text = self.now(value)
        except (TypeError, ValueError):  # (an added member JSON cannot hold: the transport answers it as it does)
            return value
        return value if text is None else Encoded(text, value)

WRITTEN: Slot[Written] = Slot("an answer's JSON text, written to measure it for one SSE event")
"""The answer's text as measured (:func:`keep_written`), copied into the response by the dispatcher
(:func:`as_sent`); taken away before the application's layers see the result."""


def written_of(value: dict[str, Any], text: str | None) -> Written | None:
    """``value`` and ``text`` (its JSON, written to measure it; None: none) as a :class:`Written`, when the text
    is worth copying (:data:`KEPT_FROM` characters or more), else None."""
    return None if text is None or len(text) < KEPT_FROM else Written(value, text)


def keep_written(request: RequestContext, value: dict[str, Any], text: str) -> None:
    """Keep ``text`` (``value``'s JSON, written to measure it) for ``request``'s response, when it is worth copying
    (:func:`written_of`)."""
    written = written_of(value, text)
    if written is not None:
        request.slots[WRITTEN] = written


def as_sent(request: RequestContext, result: dict[str, Any]) -> Any:
    """``result`` as the response carries it: an :class:`~nanohubmcp.protocol.encoded.Encoded` of its text when the
    text kept for ``request`` (:data:`WRITTEN`) is still its text (:meth:`Written.now`), else ``result``."""
    written = request.slots.pop(WRITTEN, None)
    return result if written is None else written.sent(result)
