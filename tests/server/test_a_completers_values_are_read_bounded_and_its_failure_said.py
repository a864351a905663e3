"""A completer's values are read only as far as the answer needs, and its failures are said to its client (trial79).

F3b: an iterable without a ``len()`` was counted to a million values before the first 100 were sent, so a lazy
generator with any cost per value (files, database rows) ran into ``tool_timeout``; now 101 values are read, no
more (``total`` only for an answer with a ``len()``, or one that ended within them). F2: a completer that raised or
ran past ``tool_timeout`` was answered ``-32603 "Internal error; see the server log"``, its sentence only in the
log beside an internal-error traceback; now the message says it, logged once as the completer's failure. F3: an
``async def`` completer with ``yield`` was accepted, then every call failed (``'async_generator' object is not
iterable``); now its values are read on the loop, within the same bounds. F4: values were turned into text with
``str()``: ``b"abc"`` gave ``['97', '98', '99']``, an ``object()`` its address; now a value is a string, an int or a
float (sent as its text), and anything else is refused naming its type.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

import mcp.types as types
import pytest
from mcp.shared.exceptions import MCPError
from support import era_client, serve

from nanohubmcp import MCPServer

pytestmark = pytest.mark.timeout(120)

REF = types.PromptReference(type="ref/prompt", name="pick")
ARGUMENTS = ("counted", "few", "listed", "raises", "shouting", "hangs", "streams", "streams_few", "bytes",
             "objects", "flags", "numbers")


class App:
    def __init__(self) -> None:
        self.read = 0
        self.async_read = 0
        self.async_closed = threading.Event()
        self.release = threading.Event()
        self.server = server = MCPServer("completers", provenance=False, tool_timeout=2)

        @server.prompt()
        def pick(counted: str = "", few: str = "", listed: str = "", raises: str = "", shouting: str = "",
                 hangs: str = "", streams: str = "", streams_few: str = "", bytes: str = "", objects: str = "",
                 flags: str = "", numbers: str = "") -> str:
            """A prompt whose arguments have completers."""
            return "picked"

        @server.completion(argument="counted", prompt="pick")
        def counted(value: str) -> Iterator[str]:
            for i in itertools.count():
                self.read += 1
                yield f"{value}{i}"

        @server.completion(argument="few", prompt="pick")
        def few(value: str) -> Iterator[str]:
            yield from ("first", "second")

        @server.completion(argument="listed", prompt="pick")
        def listed(value: str) -> list[str]:
            return [f"v{i}" for i in range(250)]

        @server.completion(argument="raises", prompt="pick")
        def raises(value: str) -> list[str]:
            raise ValueError(f"no material named {value}")

        @server.completion(argument="shouting", prompt="pick")
        def shouting(value: str) -> list[str]:
            raise RuntimeError("x" * 5000)

        @server.completion(argument="hangs", prompt="pick")
        def hangs(value: str) -> list[str]:
            self.release.wait(60)
            return ["late"]

        @server.completion(argument="streams", prompt="pick")
        async def streams(value: str) -> AsyncIterator[str]:
            try:
                for i in itertools.count():
                    self.async_read += 1
                    yield f"{value}{i}"
            finally:
                self.async_closed.set()

        @server.completion(argument="streams_few", prompt="pick")
        async def streams_few(value: str) -> AsyncIterator[str]:
            for name in ("alpha", "beta"):
                await asyncio.sleep(0)
                yield name

        @server.completion(argument="bytes", prompt="pick")
        def as_bytes(value: str) -> bytes:
            return b"abc"

        @server.completion(argument="objects", prompt="pick")
        def objects(value: str) -> list[Any]:
            return ["fine", object()]

        @server.completion(argument="flags", prompt="pick")
        def flags(value: str) -> list[Any]:
            return [True]

        @server.completion(argument="numbers", prompt="pick")
        def numbers(value: str) -> list[Any]:
            return ["x", 1, 2.5]


@pytest.fixture
def app() -> Iterator[App]:
    app = App()
    with serve(app.server):
        yield app
        app.release.set()


def ask(app: App, argument: str, value: str = "v") -> types.Completion | MCPError:
    base = app.server.url
    assert base is not None

    async def go() -> types.Completion | MCPError:
        async with era_client(base, "2025-11-25") as client:
            try:
                return (await client.complete(REF, {"name": argument, "value": value})).completion
            except MCPError as error:  # (raised out of the client's block, it comes in an exception group)
                return error

    return asyncio.run(go())


def complete(app: App, argument: str, value: str = "v") -> types.Completion:
    answer = ask(app, argument, value)
    assert isinstance(answer, types.Completion), answer
    return answer


def refused(app: App, argument: str, value: str = "v") -> str:
    answer = ask(app, argument, value)
    assert isinstance(answer, MCPError), answer
    assert answer.error.code == -32603, answer.error
    return answer.error.message


def test_an_endless_generator_is_read_to_the_hundred_and_first_value_only(app: App) -> None:
    completion = complete(app, "counted")
    assert completion.values == [f"v{i}" for i in range(100)]
    assert (completion.total, completion.has_more) == (None, True)
    assert app.read == 101  # before: 1,000,001 (counted for a total), past tool_timeout at any cost per value


def test_total_is_a_lists_length_or_the_count_of_an_iterable_that_ended_within_what_was_read(app: App) -> None:
    listed = complete(app, "listed")
    assert (len(listed.values), listed.total, listed.has_more) == (100, 250, True)
    few = complete(app, "few")
    assert (few.values, few.total, few.has_more) == (["first", "second"], 2, False)


def test_an_async_generator_completer_is_read_on_the_loop_within_the_same_bounds(app: App) -> None:
    completion = complete(app, "streams", "s")
    assert completion.values == [f"s{i}" for i in range(100)]
    assert (completion.total, completion.has_more) == (None, True)
    assert app.async_read == 101
    assert app.async_closed.wait(30), "the async generator was not closed"
    few = complete(app, "streams_few")
    assert (few.values, few.total, few.has_more) == (["alpha", "beta"], 2, False)


def test_a_completer_that_raises_is_answered_with_what_it_raised_and_logged_once_as_its_failure(
        app: App, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO):
        message = refused(app, "raises", "Si\x1b[2J")
    assert message == (r"Completer for prompt 'pick', argument 'raises', raised ValueError: "
                       r"no material named Si\u001b[2J")
    records = [r for r in caplog.records if r.name.startswith("nanohubmcp") and r.levelno >= logging.WARNING]
    assert [(r.name, r.levelno, r.getMessage()) for r in records] == [("nanohubmcp.tool", logging.ERROR, message)]
    exc_info = records[0].exc_info
    assert exc_info is not None
    assert exc_info[0] is ValueError  # the completer's own traceback


def test_a_long_message_is_cut(app: App) -> None:
    message = refused(app, "shouting")
    assert message.startswith("Completer for prompt 'pick', argument 'shouting', raised RuntimeError: xxx")
    assert message.endswith("…")
    assert len(message) < 400


def test_a_completer_past_tool_timeout_is_answered_so(app: App, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO):
        message = refused(app, "hangs")
    app.release.set()
    assert message.startswith("Completer for prompt 'pick', argument 'hangs', did not answer within 2 s "
                              "(tool_timeout); it was abandoned"), message
    records = [r for r in caplog.records if r.name.startswith("nanohubmcp") and r.levelno >= logging.WARNING]
    assert [(r.name, r.levelno, r.getMessage(), r.exc_info) for r in records] == [
        ("nanohubmcp.tool", logging.WARNING, message, None)]


@pytest.mark.parametrize(("argument", "said"), [
    ("bytes", "returned bytes, whose items are numbers: decode it to a string, or return a list of strings"),
    ("objects", "gave a value of type object (value at position 2): completion values are strings (an int or a float "
                "is sent as its text)"),
    ("flags", "gave a value of type bool (value at position 1): completion values are strings (an int or a float "
              "is sent as its text)"),
])
def test_a_value_that_is_no_string_or_number_is_refused_naming_its_type(app: App, argument: str, said: str) -> None:
    assert refused(app, argument) == f"Completer for prompt 'pick', argument '{argument}', {said}"


def test_ints_and_floats_are_sent_as_their_text(app: App) -> None:
    assert complete(app, "numbers").values == ["x", "1", "2.5"]
