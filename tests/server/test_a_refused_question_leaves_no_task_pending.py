"""A question the client refused (or answered malformed) leaves no task of the server pending: the
validator of the requested schema, compiled on a worker thread while the client answers (seconds, the
first time in a process), is no longer needed, and its task is cancelled at once rather than left
pending until the thread ends. Left pending, a server stopped meanwhile logged "Task was destroyed but it
is pending!" for each such question (seen in trial22's F1 runs). The thread is held here until the end,
as the first import of jsonschema holds it.
"""

from __future__ import annotations

import asyncio
import threading

import pytest

from nanohubmcp import ClientRequestError
from nanohubmcp.schema import OutputValidator
from nanohubmcp.server.asks.context_asks import AnswerCheck, _then

pytestmark = pytest.mark.timeout(60)

NAME = {"type": "object", "properties": {"name": {"type": "string"}}}


def test_the_validator_task_of_a_refused_question_ends_while_its_thread_still_runs() -> None:
    release = threading.Event()

    class HeldCheck(AnswerCheck):
        def prepare(self) -> OutputValidator | None:
            release.wait(30)
            return super().prepare()

    async def refused() -> None:
        raise ClientRequestError("the client refused elicitation/create: no")

    async def scenario() -> set[asyncio.Task[object]]:
        try:
            with pytest.raises(ClientRequestError, match="refused"):
                await _then(refused(), HeldCheck(NAME))
            others = asyncio.all_tasks() - {asyncio.current_task()}
            _, still = await asyncio.wait(others, timeout=5) if others else (set(), set())
            return still
        finally:
            release.set()  # (so the loop's executor can shut down)

    assert asyncio.run(scenario()) == set()
