"""A generator function (``yield`` in an ``async def`` or a ``def``) is refused when it is registered as a tool,
naming what to write instead (review r37 N5). It was accepted, and every call failed with "a tool returned a
value of type async_generator, which has no MCP form" and a traceback in the log; an ``async def`` one that
blocked held the loop at each value besides. A function a decorator made a generator (its wrapper yields, not
the ``def`` written for the tool) is refused saying so (trial74 F2: the message said "def with yield" of a ``def``
with no ``yield``)."""

from __future__ import annotations

import functools
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationError


async def stream(n: int) -> AsyncIterator[int]:
    """Yields n values."""
    for i in range(n):
        time.sleep(0.01)
        yield i


def values(n: int) -> Iterator[int]:
    """Yields n values."""
    yield from range(n)


@pytest.mark.parametrize("register", ["tool", "async_tool"])
def test_an_async_generator_function_is_refused_naming_what_to_do(register: str) -> None:
    server = MCPServer("agen")
    with pytest.raises(RegistrationError) as refused:
        getattr(server, register)()(stream)
    assert str(refused.value) == (
        "tool 'stream' is an async generator function (async def with yield): a call is answered with one value, "
        "and a generator has no MCP form; collect the values and return them (a list, or a dict), and report how "
        "far it is with ctx.report_progress(done, total) (a Context parameter) while it works")


def test_a_generator_function_is_refused_and_a_function_returning_a_list_is_not() -> None:
    server = MCPServer("gen")
    with pytest.raises(RegistrationError, match=r"^tool 'values' is a generator function \(def with yield\): "):
        server.tool()(values)

    @server.tool()
    def listed(n: int) -> list[int]:
        """Returns n values."""
        return list(values(n))

    server.start(port=0)
    try:
        assert server.call("listed", {"n": 3}).structured == {"result": [0, 1, 2]}
    finally:
        server.stop()


def _each_value(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Iterator[Any]:
        yield from fn(*args, **kwargs)

    return wrapper


def test_a_function_a_decorator_made_a_generator_is_refused_naming_the_decorator() -> None:
    @_each_value
    def listed(n: int) -> list[int]:
        """Returns n values."""
        return list(range(n))

    with pytest.raises(RegistrationError) as refused:
        MCPServer("wrapped").tool()(listed)
    assert str(refused.value).startswith(
        "tool 'listed' is a generator function (a decorator made it one: its wrapper 'wrapper' yields, the function "
        "'listed' it wraps does not): a call is answered with one value, and a generator has no MCP form; serve it "
        "without that decorator, or with one whose wrapper returns the values (a list, or a dict), ")


class _Counter:
    """A callable object whose ``__call__`` yields."""

    def __call__(self, n: int) -> Iterator[int]:
        yield from range(n)


class _Adder:
    """A callable object whose ``__call__`` returns."""

    def __call__(self, a: int, b: int) -> int:
        return a + b


def test_a_callable_object_whose_call_yields_is_refused_and_one_that_returns_is_not() -> None:
    """trial75 F1: a callable object was looked at as itself (no generator function), so its ``__call__``'s
    ``yield`` was found only at the first call ("a tool returned a value of type generator ...")."""
    server = MCPServer("objects")
    with pytest.raises(RegistrationError) as refused:
        server.tool(name="counter", description="Counts.")(_Counter())
    assert str(refused.value).startswith(
        "tool 'counter' is a generator function (the __call__ of its _Counter object yields): a call is answered "
        "with one value, and a generator has no MCP form; collect the values and return them"), refused.value
    server.tool(name="adder", description="Adds.")(_Adder())  # refused for nothing
    assert "adder" in server.runtime.tools


def test_a_generator_function_under_lru_cache_is_refused() -> None:
    """trial75 F1: ``functools.lru_cache``'s wrapper is no function; the generator is its ``__wrapped__``."""

    @functools.cache  # (lru_cache(maxsize=None): its wrapper)
    def cached(n: int) -> Iterator[int]:
        """Yields n values."""
        yield from range(n)

    with pytest.raises(RegistrationError) as refused:
        MCPServer("cached").tool()(cached)
    assert str(refused.value).startswith(
        "tool 'cached' is a generator function (the function 'cached' its wrapper calls yields): "), refused.value
