"""A completer's answer read into ``completion/complete``'s values, and a completer's failure said to its client.

What a completer gives is read only as far as the answer needs: the first :data:`MAX_COMPLETIONS` values and
one more (to know ``hasMore``), never counted further, so a lazy or endless iterable is answered as soon as its
first values come. Each value is a string; an int or a float is sent as its text; anything else is refused,
naming its type, as a completer's failure is: one ``-32603`` error whose message says what happened (it raised,
it did not answer within ``tool_timeout``, it gave a value that is no string), logged once on the
``nanohubmcp.tool`` logger as the completer's failure, not as the server's.

Source: MCP 2025-11-25, Server § Utilities § Completion (``values`` strings, at most 100; ``total`` optional).
"""

from __future__ import annotations

import inspect
import itertools
import logging
import numbers
from collections.abc import AsyncIterator, Callable
from typing import Any, NamedTuple

from ...errors import InternalError, ProtocolError, ToolBusy, ToolTimeout, text_of
from ...schema.paths import echoed

log = logging.getLogger("nanohubmcp.tool")

MAX_COMPLETIONS = 100
"""Values a ``completion/complete`` answer holds at most (MCP 2025-11-25, Server § Utilities § Completion)."""


class Suggested(NamedTuple):
    """What :func:`suggestions` made of a completer's answer."""

    values: list[str]
    total: int | None
    more: bool


class NotAValue(Exception):
    """A completer gave something that is no completion value (said by :func:`failed` with the completer's name)."""


def suggested(fn: Callable[..., Any], kwargs: dict[str, Any]) -> Suggested:
    """A sync completer's call and its answer read, together (on a worker)."""
    return suggestions(fn(**kwargs))


async def suggested_async(fn: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    """An ``async def`` completer's call: its coroutine awaited, or its async generator (``async def`` with
    ``yield``), or an async iterable it returns, read here on the loop up to :data:`MAX_COMPLETIONS` + 1 values
    (a :class:`Suggested`); any other value is given back as it came (a list, a generator: read by the caller)."""
    produced = fn(**kwargs)
    if inspect.isawaitable(produced):
        produced = await produced
    if not hasattr(type(produced), "__aiter__"):
        return produced
    items: AsyncIterator[Any] = aiter(produced)
    read: list[Any] = []
    try:
        async for value in items:
            read.append(value)
            if len(read) > MAX_COMPLETIONS:
                break
    finally:
        close = getattr(items, "aclose", None)
        if close is not None:  # (its finally blocks run now, not at the collector's whim)
            await close()
    return _answer(read, None)


def suggestions(produced: Any) -> Suggested:
    """A completer's answer as the first :data:`MAX_COMPLETIONS` values (as text), how many it gave in all
    and whether there are more: a list or any iterable of values, one string (one value), or None (none).
    ``total`` is the answer's ``len()`` when it has one; an iterable without one is read to
    :data:`MAX_COMPLETIONS` + 1 values, no further: ``total`` only when it ended within them. Read on a
    worker thread when it is not a list: a generator may take its time.

    Raises:
        NotAValue: the answer is bytes (whose items are numbers) or no iterable, or a value sent is neither a
            string nor an int or a float.
    """
    if produced is None:
        return Suggested([], 0, False)
    if isinstance(produced, str):
        return Suggested([_text(produced, 0)], 1, False)
    if isinstance(produced, (bytes, bytearray, memoryview)):
        raise NotAValue(f"returned {type(produced).__name__}, whose items are numbers: decode it to a string, or "
                        "return a list of strings")
    try:
        items = iter(produced)
    except TypeError:
        raise NotAValue(f"returned {_kind(produced)}: return a list of strings (or any iterable of them), one "
                        "string, or None") from None
    try:
        total: int | None = len(produced)
    except TypeError:  # no length: read one past what is sent, to know whether there are more
        total = None
    return _answer(list(itertools.islice(items, MAX_COMPLETIONS + (total is None))), total)


def _answer(read: list[Any], total: int | None) -> Suggested:
    values = [_text(value, i) for i, value in enumerate(read[:MAX_COMPLETIONS])]
    if total is None and len(read) <= MAX_COMPLETIONS:  # it ended within what was read: that is its count
        total = len(read)
    return Suggested(values, total, total is None or total > len(values))


def _text(value: Any, index: int) -> str:
    """A value as the text sent: a string as it is, an int or a float (not a bool) as ``str()`` writes it."""
    if type(value) is str:
        return value
    if isinstance(value, str):
        return str.__str__(value)  # (a subclass's own __str__ is not asked)
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return str(value)
    raise NotAValue(f"gave {_kind(value)} (value at position {index + 1}): completion values are strings (an int or a "
                    "float is sent as its text)")


def _kind(value: Any) -> str:
    return f"a value of type {echoed(type(value).__name__)}"


def completer_named(kind: str, name: str, argument: str) -> str:
    """How an error names the completer of ``argument`` of the prompt (``ref/prompt``) or template ``name``."""
    owner, what = ("prompt", "argument") if kind == "ref/prompt" else ("template", "variable")
    return f"Completer for {owner} '{echoed(name)}', {what} '{echoed(argument)}',"


def failed(who: str, exc: Exception, timeout: float | None) -> ProtocolError:
    """The error answering a completer's failure (``who``: :func:`completer_named`), logged once here.

    A protocol error it raised goes as it is. Otherwise -32603 (MCP 2025-11-25 lets a server answer its own
    failure so), its message saying what happened, cut and escaped as a client-sent name is
    (:func:`~...schema.paths.echoed`): past ``tool_timeout``, could not start, raised (its type and message), or
    gave what is no completion value. Logged on ``nanohubmcp.tool``: one line at WARNING, but an exception the
    completer raised, at ERROR with its traceback.
    """
    if isinstance(exc, ProtocolError):
        return exc
    raised = False
    if isinstance(exc, ToolTimeout):
        after = text_of(exc).partition("(tool_timeout)")[2]  # what became of its run ("; it was cancelled")
        said = f"did not answer within {timeout:g} s (tool_timeout){after}" if timeout else text_of(exc)
    elif isinstance(exc, ToolBusy):
        said = f"was not run: {text_of(exc)}"
    elif isinstance(exc, NotAValue):
        said = text_of(exc)
    else:
        said, raised = f"raised {type(exc).__name__}: {text_of(exc)}", True
    message = f"{who} {echoed(said)}"
    if raised:  # the completer's own traceback, for its author
        log.error("%s", message, exc_info=exc)
    else:
        log.warning("%s", message)
    return InternalError(message)


def is_read_whole(produced: Any) -> bool:
    """Whether an ``async def`` completer's answer is read where it is (a list, a string, None, or what
    :func:`suggested_async` read), not on a worker (a generator may take its time)."""
    return produced is None or isinstance(produced, (list, tuple, str, Suggested))


__all__ = ["MAX_COMPLETIONS", "NotAValue", "Suggested", "completer_named", "failed", "is_read_whole", "suggested",
           "suggested_async", "suggestions"]
