"""Answers to a task's input requests received by another process (a 2026 ``tasks/update``) reach the
process running the task (``JobStore.answer``): through Redis, where they are kept and the task is
named on the channel ``jobs:answer``; with a shared SQLite file, which carries nothing between
processes, the client is told to send them again (503).

Two job stores stand for two processes, on one real redis-server and on one SQLite state directory.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from nanohubmcp.errors import ServerBusy
from nanohubmcp.server.jobs import service as jobmod

pytestmark = pytest.mark.timeout(60)

ANSWER = {"go_on": {"action": "accept", "content": {"ok": True}}}


def test_answers_received_elsewhere_reach_the_waiting_task(
    two_job_stores: tuple[jobmod.JobStore, jobmod.JobStore],
) -> None:
    running, receiving = two_job_stores

    async def scenario() -> list[dict[str, Any]]:
        job = running.create("work", None, as_task=True)
        delivered: list[dict[str, Any]] = []
        both = asyncio.Event()

        def answers_to(answers: dict[str, Any]) -> None:  # (what TaskInputs.ask sets while it waits)
            delivered.append(answers)
            if len(delivered) == 2:
                both.set()

        job.answers_to = answers_to
        seen = receiving.get(job.id, None)
        assert not receiving.runs_here(seen)
        if not receiving.backend.tells_ends:
            with pytest.raises(ServerBusy, match="send the tasks/update again"):
                receiving.answer(seen, ANSWER)
            return []
        receiving.answer(seen, ANSWER)
        receiving.answer(seen, {"second": {"action": "decline"}})
        await asyncio.wait_for(both.wait(), 30)
        return delivered

    delivered = asyncio.run(scenario())
    if receiving.backend.tells_ends:
        assert delivered == [ANSWER, {"second": {"action": "decline"}}]  # each once, in order
