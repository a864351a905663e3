"""Where one call's large results go: inline while they fit, else kept in the :class:`~.store.ResultStore`
behind a ``resource_link`` (MCP 2025-11-25, Server § Tools § Resource links), refused over the limits
(``max_result_bytes`` for an answer, the store's size for a kept result:
:class:`~nanohubmcp.errors.ResultTooLarge`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .deferred import Finish
from .kept_size import KEEP_LESS, TooLargeToKeep, utf8_size
from .options import ResultOptions
from .owners import owner_of

if TYPE_CHECKING:  # the store is made at its first use (server/first_use); a sink only holds it
    from ..wire.request import RequestContext
    from .store import ResultStore

__all__ = ["ResultSink", "call_sink"]


def call_sink(options: ResultOptions, store: ResultStore | None, request: RequestContext, *,
              job: str | None) -> ResultSink:
    """Where the large results of ``request``'s call go (``job``: the id of the call's job, whose result it
    is, kept with the job; None: a direct call).

    Over MCP: kept in ``store``, owned by the request's owner (:func:`~.owners.owner_of`); a job's, naming the
    job too, so that whoever may read the job by its id reads them (:attr:`ResultSink.job`). A direct REST
    call (``request.data_only``) keeps nothing: its answer carries its data and names its pictures and files,
    never carries them. A job, whoever started it, keeps its pictures and files over ``max_inline_bytes``, its
    data inline (:attr:`ResultSink.data_inline`): its polled ``result`` is the tool's value (a REST poll reads
    the data, never a resource), the same whether an MCP client or REST started it, and an MCP client polling
    it reads the same kind of link (``nanohubmcp://results/...``, with its name, mimeType and size).
    """
    rest = request.data_only
    return ResultSink(options, None if rest and job is None else store, owner_of(request),
                      data_inline=rest or job is not None, job=job)


@dataclass
class ResultSink:
    """Where one call's large results go: the options, the store and the caller who owns them; ``later``
    (shaping on an event loop): the keeps that found the results folder's lock held, to finish off the loop
    (:meth:`finish_later`) before the result is answered (:mod:`.deferred`); ``data_inline``: the call's data
    stays in its answer whatever its size, only its pictures and files over ``max_inline_bytes`` are kept
    (a job: its polled ``result`` is the tool's value, whoever started it; see :func:`call_sink`); ``job``:
    the id of the job whose result it keeps (:meth:`~.store.ResultStore.kept_by`: whoever may read that job
    by its id reads them too), None for a call's own."""

    options: ResultOptions = field(default_factory=ResultOptions)
    store: ResultStore | None = None
    owner: str | None = None
    later: list[Finish] | None = None
    data_inline: bool = False
    job: str | None = None

    @property
    def whose(self) -> str:
        """What the refusals name: "the job's" for a job's result (:attr:`job`), else "the tool's"."""
        return "the job's" if self.job is not None else "the tool's"

    def finish_later(self) -> None:
        """Finish the keeps put off on the event loop (:attr:`later`), each waiting for the results folder's
        lock up to the store's ``lock_wait_seconds``: call it off the loop (a worker thread)."""
        for finish in self.later or ():
            finish()

    def too_big(self, size: int) -> bool:
        """True when ``size`` bytes of the call's data must not be inlined (and there is a store to keep
        them, and the data is not :attr:`data_inline`)."""
        return not self.data_inline and self.keeps_file(size)

    def keeps_file(self, size: int) -> bool:
        """True when a picture or file of ``size`` bytes (its base64 or its text) is kept and linked rather
        than inlined: there is a store and it is over ``max_inline_bytes`` (:attr:`data_inline` or not)."""
        limit = self.options.max_inline_bytes
        return self.store is not None and limit is not None and size > limit

    def keeps(self) -> bool:
        """Whether the call's data, too large to inline, can be kept (a store, ``max_inline_bytes``, and
        not :attr:`data_inline`)."""
        return not self.data_inline and self.store is not None and self.options.max_inline_bytes is not None

    def most_bytes(self) -> int | None:
        """The most bytes of JSON a result's data may take here: the store's size when it may be kept,
        else ``max_result_bytes`` (None: no limit)."""
        if self.keeps():
            assert self.store is not None
            return self.store.max_bytes
        return self.options.max_result_bytes

    def refuse(self, size: int) -> None:
        """Refuse a result's data found to be over :meth:`most_bytes` while it was written (``size``:
        the characters written so far) (:class:`~nanohubmcp.errors.ResultTooLarge`)."""
        if not self.keeps():
            self.hold(size, at_least=True)
        self.hold_kept(size, at_least=True)

    def hold_kept(self, size: int, *, at_least: bool = False) -> None:
        """Refuse ``size`` bytes of data to keep when they are over the store's size (it would refuse
        them once written).

        Raises:
            ResultTooLarge: naming the size, the store's size and what to do.
        """
        limit = self.store.max_bytes if self.store is not None else None
        if limit is None or size <= limit:
            return
        from ...errors import ResultTooLarge

        raise ResultTooLarge(
            f"{self.whose} result is {'at least ' if at_least else ''}{size} bytes of JSON, more than the server "
            f"keeps for large results ({limit}); {KEEP_LESS}")

    def hold(self, size: int, *, at_least: bool = False) -> None:
        """Refuse to put ``size`` bytes of JSON in an answer when they are over ``max_result_bytes``
        (``at_least``: ``size`` is a lower bound, found before encoding the data).

        Raises:
            ResultTooLarge: naming the size, the limit and what to do.
        """
        limit = self.options.max_result_bytes
        if limit is None or size <= limit:
            return
        from ...errors import ResultTooLarge

        raise ResultTooLarge(
            f"{self.whose} result is {'at least ' if at_least else ''}{size} bytes of JSON, more than this server "
            f"sends in one answer (max_result_bytes={limit}); ask for less data (a smaller size, range or "
            "sample), or have the server's max_result_bytes raised")

    def link(self, data: bytes | str, mime_type: str, name: str, description: str) -> dict[str, Any]:
        """Keep ``data`` and return the ``resource_link`` block that points at it."""
        from ...protocol.content import ResourceLink  # the content blocks: loaded with the first tool call

        assert self.store is not None
        suffix = name[name.rfind(".") :] if "." in name else ""
        size = utf8_size(data)
        self.hold_kept(size)  # over the store's size: the call's ResultTooLarge (one log line), not a ValueError
        uri = self.store.keep(data, mime_type, suffix, self.owner, self.later, job=self.job)
        return ResourceLink(uri, name=name, description=description, mime_type=mime_type, size=size).to_wire()

    def link_parts(self, parts: Callable[[], Iterable[str]], mime_type: str, name: str,
                   description: str) -> dict[str, Any]:
        """Keep the text ``parts()`` makes, written a part at a time (:meth:`ResultStore.keep_parts`),
        and return the ``resource_link`` block that points at it.

        Raises:
            ResultTooLarge: the text is larger than the store (found while it is written).
        """
        from ...protocol.content import ResourceLink

        assert self.store is not None
        suffix = name[name.rfind(".") :] if "." in name else ""
        try:
            uri, size = self.store.keep_parts(parts, mime_type, suffix, self.owner, job=self.job)
        except TooLargeToKeep as refused:
            self.hold_kept(refused.size, at_least=refused.at_least)
            raise  # (not reached: it is over the store's size)
        return ResourceLink(uri, name=name, description=description, mime_type=mime_type, size=size).to_wire()
