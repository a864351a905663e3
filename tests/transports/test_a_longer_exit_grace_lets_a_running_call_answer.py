"""review r27 #9: a call still running 2 s after SIGTERM was answered 503 "The server is stopping: this request
was not completed; it may be retried" at any exit grace; the process then waited for that same call, up to the
grace, and threw its result away. ``--exit-grace 30`` gave running calls no more time than the default.

Now the running calls have the exit grace, less what the stop keeps for the answers of those cut off and the
process's own exit (:func:`nanohubmcp.processes.process_exit.drain_step`): with ``--exit-grace 8`` a sync call
that takes 3 s after the signal is answered with its result, over REST, to the official ``mcp`` client and over
stdio, and
the process still exits within the grace. A real ``nanohubmcp run`` process; every wait is for a condition.

trial52 N1: the official client that called the tool without listing tools first lists them after the answer
(to check it against the tool's output schema); the stopping server refused that ``tools/list`` with -32000,
and ``call_tool`` raised "not completed; it may be retried" for a call that completed. A stopping server now
answers listings and pings on a session that exists (``official-unlisted``).

stdiostop: the same client over stdio (SIGTERM as the call runs) lost the result the same way: the stdio drain
closed as soon as the call answered, before its follow-up ``tools/list`` was read. And in the stateless 2026-07-28
era (``mcp.Client(..., mode="2026-07-28")``, over HTTP and over stdio) every request is in no session, so the
stop refused that ``tools/list`` (the rule asked for a session that exists). Now stdio keeps reading a moment
after a call's answer, as HTTP does (``Shutdown.quiet``), and a stateless listing is answered while the server
stops (``official-2026``, and the stdio test)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from support import app_server, mcp_client, wait_until

pytestmark = pytest.mark.timeout(120)

APP = """
import os, sys, time
from pathlib import Path
from nanohubmcp import MCPServer
server = MCPServer("graceful")

@server.tool()
def slow(seconds: float) -> str:
    '''A sync function that sleeps, then answers.'''
    Path("running.pid").write_text(str(os.getpid()))  # (for a test whose client started the process)
    print("slow: running", file=sys.stderr, flush=True)
    time.sleep(seconds)
    return "done"
"""
GRACE = 8.0
TAKES = 3.0
"""How long the call runs after it printed that it runs: more than the 2 s the running calls had at any grace."""


def _stopped_within_the_grace(process: Any, signalled: float) -> None:
    assert process.wait(60) == 0
    took = time.monotonic() - signalled
    assert took <= GRACE, f"exited {took:.1f} s after SIGTERM; the grace is {GRACE:g} s"


@pytest.mark.parametrize("client", ["rest", "official", "official-unlisted", "official-2026"])
def test_a_call_ending_within_the_grace_is_answered_with_its_result(tmp_path: Path, client: str) -> None:
    app = tmp_path / "app.py"
    app.write_text(APP)
    with app_server(app, "--exit-grace", f"{GRACE:g}", log=tmp_path / "server.log") as served:
        answers: list[Any] = []

        def rest() -> None:
            answers.append(httpx.post(f"{served.url}tools/slow", json={"seconds": TAKES}, timeout=60))

        def official() -> None:
            async def main() -> Any:
                if client == "official-2026":  # stateless: it lists the tools after the answer, in no session
                    from mcp import Client

                    async with Client(f"{served.url}mcp", mode="2026-07-28") as modern:
                        return await modern.call_tool("slow", {"seconds": TAKES})
                async with mcp_client(f"{served.url}mcp") as session:
                    if client == "official":
                        await session.list_tools()  # (else it lists them after the answer, to check it)
                    return await session.call_tool("slow", {"seconds": TAKES})

            try:
                answers.append(asyncio.run(main()))
            except BaseException as exc:  # (its teardown against a server now gone may raise after the answer)
                if not answers:
                    answers.append(exc)

        caller = threading.Thread(target=rest if client == "rest" else official, daemon=True)
        caller.start()
        wait_until(lambda: "slow: running" in served.output, "the call to run")
        served.process.send_signal(signal.SIGTERM)
        signalled = time.monotonic()
        caller.join(60)
        _stopped_within_the_grace(served.process, signalled)
        said = served.output
    assert answers, said
    if client == "rest":
        assert answers[0].status_code == 200, answers[0].text
        assert answers[0].json() == {"result": "done"}, answers[0].text
    else:
        result = answers[0]
        assert not isinstance(result, BaseException), repr(result)
        assert not result.is_error, result
        assert result.content[0].text == "done", result
    # Said as the stop began (the drain now lasts seconds), how to quit at once with it; nothing said of a call cut off.
    assert "stopped; waiting for 1 running tool call(s) to return" in said, said
    assert "send SIGTERM again to quit now" in said, said
    assert "still running; exiting without them" not in said, said
    assert "Traceback" not in said, said


def test_over_stdio_a_call_ending_within_the_grace_is_answered_with_its_result(tmp_path: Path) -> None:
    app = tmp_path / "app.py"
    app.write_text(APP)
    log = tmp_path / "stderr.log"
    with log.open("wb") as sink:
        process = subprocess.Popen([sys.executable, "-u", "-m", "nanohubmcp", "run", str(app), "--transport", "stdio",
                                    "--exit-grace", f"{GRACE:g}"],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=sink, cwd=tmp_path)
    assert process.stdin is not None
    assert process.stdout is not None
    try:
        call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                "params": {"name": "slow", "arguments": {"seconds": TAKES}}}
        process.stdin.write(json.dumps(call).encode() + b"\n")
        process.stdin.flush()
        wait_until(lambda: "slow: running" in log.read_text(), "the call to run")
        process.send_signal(signal.SIGTERM)
        signalled = time.monotonic()
        lines = [json.loads(line) for line in process.stdout]
        _stopped_within_the_grace(process, signalled)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(30)
    said = log.read_text()
    assert lines[-1]["id"] == 7, lines
    assert lines[-1]["result"]["content"][0]["text"] == "done", lines
    assert "stopped; waiting for 1 running tool call(s) to return" in said, said
    assert "Traceback" not in said, said


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_over_stdio_the_official_client_gets_the_result_of_a_call_it_had_not_listed(tmp_path: Path, mode: str) -> None:
    """The official client over stdio (``mcp.client.stdio``; its handshake era, and the stateless one) calls the
    tool without listing tools first, so it lists them after the answer; SIGTERM reaches the server as the call
    runs. The call's result is returned (before: "Connection closed" in the handshake era, the stop's -32000 in
    the stateless one, for a call that completed)."""
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    app = tmp_path / "app.py"
    app.write_text(APP)
    params = StdioServerParameters(
        command=sys.executable, cwd=str(tmp_path), env=dict(os.environ),
        args=["-m", "nanohubmcp", "run", str(app), "--transport", "stdio", "--exit-grace", f"{GRACE:g}"])
    started = tmp_path / "running.pid"
    signalled: list[float] = []

    async def main() -> Any:
        with (tmp_path / "stderr.log").open("w") as errors:
            async with Client(stdio_client(params, errlog=errors), mode=mode) as client:
                calling = asyncio.ensure_future(client.call_tool("slow", {"seconds": TAKES}))
                pid = await asyncio.to_thread(wait_until, lambda: started.exists() and started.read_text(),
                                              "the call to run")
                os.kill(int(pid), signal.SIGTERM)
                signalled.append(time.monotonic())
                return await calling

    result = asyncio.run(main())
    said = (tmp_path / "stderr.log").read_text()
    assert not result.is_error, (result, said)
    assert result.content[0].text == "done", (result, said)
    assert time.monotonic() - signalled[0] <= GRACE + 5, said  # (the client's own teardown included)
    assert "stopped; waiting for 1 running tool call(s) to return" in said, said
    assert "Traceback" not in said, said
