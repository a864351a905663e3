"""A generator function refused as a tool: a call is answered with one value, and a generator has no MCP form.

What a call runs is looked at (a callable object's ``__call__``, a non-function wrapper's ``__wrapped__``), and a
``yield`` a decorator's wrapper made is said to be the decorator's."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ...errors import RegistrationError

__all__ = ["refuse_generator"]


def refuse_generator(fn: Callable[..., Any], tool_name: str) -> None:
    """``RegistrationError`` for a generator function (``yield`` in a ``def`` or an ``async def``): a call's
    answer is one value, and what a generator returns has no MCP form (each call would fail). A function whose
    ``yield`` is a decorator's (its wrapper's code, not the ``def`` it wraps) is said to be one a decorator made.
    What a call runs is looked at: a callable object's ``__call__``, and the function a wrapper that is no function
    names as ``__wrapped__`` (``functools.lru_cache``)."""
    called, via = _called(fn)
    if inspect.isasyncgenfunction(called):
        kind, written = "an async generator function", "async def with yield"
    elif inspect.isgeneratorfunction(called):
        kind, written = "a generator function", "def with yield"
    else:
        return
    made = via or _made_by_decorator(fn)
    fix = ("serve it without that decorator, or with one whose wrapper returns the values"
           if made and "__call__" not in made else "collect the values and return them")
    raise RegistrationError(
        f"tool '{tool_name}' is {kind} ({made or written}): a call is answered with one value, and a generator has "
        f"no MCP form; {fix} (a list, or a dict), and report how far it is with ctx.report_progress(done, total) "
        "(a Context parameter) while it works")


def _called(fn: Callable[..., Any]) -> tuple[Callable[..., Any], str | None]:
    """What a call of ``fn`` runs, and how it is reached when that is not ``fn`` itself: a function, a method, a
    ``functools.partial`` or a class is itself; a wrapper that is no function (``functools.lru_cache``) runs its
    ``__wrapped__``; any other callable object runs its class's ``__call__``."""
    if inspect.isfunction(fn) or inspect.ismethod(fn) or isinstance(fn, type):
        return fn, None
    wrapped = getattr(fn, "__wrapped__", None)
    if callable(wrapped):
        return wrapped, f"the function {getattr(wrapped, '__name__', '?')!r} its wrapper calls yields"
    call = inspect.getattr_static(type(fn), "__call__", None)
    if inspect.isfunction(call):
        return call, f"the __call__ of its {type(fn).__name__} object yields"
    return fn, None


def _made_by_decorator(fn: Callable[..., Any]) -> str | None:
    """How a decorator made ``fn`` a generator function, when its code is another function's than the one it is
    named for (``functools.wraps`` copies the name, not the code): the wrapper's ``yield`` is not in the ``def``
    written for the tool. None: its own ``def`` yields (or nothing says otherwise)."""
    code_name = getattr(getattr(fn, "__code__", None), "co_name", None)
    try:
        inner = inspect.unwrap(fn)
    except ValueError:  # (a cycle of __wrapped__)
        inner = fn
    if inner is not fn and not (inspect.isgeneratorfunction(inner) or inspect.isasyncgenfunction(inner)):
        return (f"a decorator made it one: its wrapper {code_name!r} yields, the function "
                f"{getattr(inner, '__name__', '?')!r} it wraps does not")
    if inner is fn and code_name is not None and code_name != getattr(fn, "__name__", code_name):
        return f"its code is {code_name!r}, which yields: a decorator may have made it one"
    return None
