"""An ``async def`` tool that goes on past ``tool_timeout``'s cancel (it catches ``CancelledError``, or its cleanup
awaits something that never comes) is logged once at WARNING, naming the tool and how long it has run.

Before: ``asyncio.wait_for`` cancelled it and waited for it to end, with nothing said: the call stayed unanswered
and the operator's log was silent, where a sync function past its limit is logged as it is abandoned. The call is
still answered only once the function ends (its cancel cannot be forced), and a client's ``notifications/cancelled``
still ends the request.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.server.calls import invoke
from nanohubmcp.testing import MemoryClient, in_memory


def build(release: threading.Event, ran: list[str]) -> MCPServer:
    server = MCPServer("stubborn", tool_timeout=0.2, provenance=False)

    @server.tool()
    async def stubborn() -> str:
        """Catches its cancel and waits on."""
        ran.append("started")
        while not release.is_set():
            try:
                await asyncio.sleep(0.01)
            except asyncio.CancelledError:
                ran.append("cancel caught")
        return "done"

    return server


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "nanohubmcp.tool" and r.levelno == logging.WARNING
            and "after its cancel" in r.getMessage()]


def test_a_tool_going_on_after_its_cancel_is_logged_once_with_its_name_and_time(
        caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    # production: 5 s; the mechanism is the same
    monkeypatch.setattr(invoke, "CANCEL_GRACE_SECONDS", 0.3, raising=False)
    caplog.set_level(logging.WARNING, logger="nanohubmcp.tool")
    release, ran = threading.Event(), []
    answers: list[dict[str, object]] = []
    with in_memory(build(release, ran)) as client:
        caller = threading.Thread(target=lambda: answers.append(client.call_tool("stubborn", {}, timeout=60)))
        caller.start()
        deadline = time.monotonic() + 30
        while not warnings_of(caplog) and time.monotonic() < deadline:  # was: nothing, ever
            time.sleep(0.01)
        release.set()
        caller.join(30)
    said = warnings_of(caplog)
    assert len(said) == 1, said
    assert said[0].startswith("tool 'stubborn' has run "), said[0]
    assert "0.2 s (tool_timeout)" in said[0]
    assert "CancelledError" in said[0]
    assert "cancel caught" in ran
    text = answers[0]["content"][0]["text"]  # type: ignore[index]
    assert "did not finish within 0.2 s (tool_timeout)" in text


@pytest.mark.anyio
async def test_a_clients_cancel_ends_the_request_of_a_tool_that_ignores_it() -> None:
    release, ran = threading.Event(), []
    server = build(release, ran)
    async with MemoryClient(server) as client:
        call = asyncio.ensure_future(client.call_tool("stubborn", {}))
        while not ran:
            await asyncio.sleep(0.01)
        call.cancel()  # the client's notifications/cancelled
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(call, 10)
        assert (await asyncio.wait_for(client.request("ping", {}), 10)) == {}
    release.set()
