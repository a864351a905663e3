"""A completer's answer is read off the event loop, within bounds, and its client's cancel ends it (trial77 F1, F2).

``@server.completion`` takes "a list of strings — or any iterable of values": the iterable was read to its end on
the event loop (its first 100 values sent, the rest counted for ``total``), outside the time limit. One
``completion/complete`` of a completer giving ``itertools.count()`` froze the whole server (every client, even
``/healthz``); a generator taking a second a value held every other client a second a value. Now a sync completer
runs, and its answer is read, on a worker within ``tool_timeout``; an ``async def`` completer's iterable (not a
list) is read on a worker too; an iterable without a length is read to its 101st value at most (then no ``total``,
``hasMore`` true: MCP 2025-11-25, Server § Utilities § Completion makes ``total`` optional). An ``async
def`` completer its client cancels has its coroutine cancelled and is not answered, as a prompt or a resource.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
import urllib.request
from collections.abc import Iterator
from typing import Any

import mcp.types as types
import pytest
from support import era_client, serve

from nanohubmcp import MCPServer

pytestmark = pytest.mark.timeout(120)

REF = types.PromptReference(type="ref/prompt", name="pick")


class App:
    def __init__(self) -> None:
        self.healthz_answered = threading.Event()
        self.reading = threading.Event()
        self.started = threading.Event()
        self.cancelled = threading.Event()
        self.server = server = MCPServer("completers", provenance=False)

        @server.prompt()
        def pick(endless: str = "", slow: str = "", waits: str = "", lazy: str = "") -> str:
            """A prompt whose arguments have completers."""
            return "picked"

        @server.completion(argument="endless", prompt="pick")
        def endless(value: str) -> Any:
            return (f"{value}{i}" for i in itertools.count())

        @server.completion(argument="slow", prompt="pick")
        def slow(value: str) -> Iterator[str]:
            def values() -> Iterator[str]:
                yield "first"
                self.reading.set()
                self.healthz_answered.wait(20)  # on the loop, /healthz could not be answered meanwhile
                yield "second"
            return values()

        @server.completion(argument="lazy", prompt="pick")
        async def lazy(value: str) -> Any:
            return itertools.count()  # an async completer's endless iterable: read off the loop too

        @server.completion(argument="waits", prompt="pick")
        async def waits(value: str) -> list[str]:
            self.started.set()
            try:
                await asyncio.sleep(600)
            except asyncio.CancelledError:
                self.cancelled.set()
                raise
            return ["never"]


@pytest.fixture
def app() -> Iterator[App]:
    app = App()
    with serve(app.server):
        yield app


def complete(app: App, argument: str) -> types.CompleteResult:
    base = app.server.url
    assert base is not None

    async def go() -> types.CompleteResult:
        async with era_client(base, "2025-11-25") as client:
            return await client.complete(REF, {"name": argument, "value": "v"})

    return asyncio.run(go())


@pytest.mark.parametrize("argument", ["endless", "lazy"])
def test_an_endless_iterable_is_answered_with_a_hundred_values_and_no_total(app: App, argument: str) -> None:
    completion = complete(app, argument).completion
    assert len(completion.values) == 100
    assert completion.has_more is True
    assert completion.total is None
    base = app.server.url
    with urllib.request.urlopen(f"{base}healthz", timeout=20) as health:  # the server serves on
        assert health.status == 200


def test_healthz_answers_while_a_completers_generator_is_read(app: App) -> None:
    answer: dict[str, Any] = {}
    asking = threading.Thread(target=lambda: answer.update(result=complete(app, "slow")))
    asking.start()
    try:
        assert app.reading.wait(30), "the completer's generator was not read"
        with urllib.request.urlopen(f"{app.server.url}healthz", timeout=10) as health:  # before: timed out
            assert health.status == 200
    finally:
        app.healthz_answered.set()
        asking.join(60)
    completion = answer["result"].completion
    assert (completion.values, completion.total, completion.has_more) == (["first", "second"], 2, False)


def test_an_async_completer_its_client_cancels_is_cancelled(app: App) -> None:
    base = app.server.url
    assert base is not None

    async def abandon() -> list[str]:
        async with era_client(base, "2025-11-25") as client:
            task = asyncio.ensure_future(client.complete(REF, {"name": "waits", "value": "v"}))
            assert await asyncio.to_thread(app.started.wait, 30), "the completer did not start"
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            return (await client.complete(REF, {"name": "endless", "value": "x"})).completion.values[:2]

    assert asyncio.run(abandon()) == ["x0", "x1"]  # the session serves on
    assert app.cancelled.wait(30), "the completer's coroutine was not cancelled"  # before: it slept on
