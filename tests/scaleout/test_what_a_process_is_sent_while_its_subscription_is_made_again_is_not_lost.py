"""A client's answer to a tool's question (elicitation) that reaches another process while the asking process's
pub/sub subscription is being made again still reaches the tool, not its timeout; so does a client's cancel of a
call that reaches another process while the running process's subscription is being made again.

The answering process relayed an answer, and a cancel, with a PUBLISH alone: heard by no subscriber (the running
process's subscription lost, not yet made again), it was lost, and the tool waited until its question timed out
(or ran to its end). Both are now also kept in Redis (an answer at ``a:<session>:<request>`` for as long as its
question waits, a cancel in the sorted set ``cxk`` a minute), and a process reads those of its pending
questions and running calls each time its subscription is made.

The window is made, not hoped for (:mod:`deaf_subscription`).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import redis
import wire
from counting import add_count
from deaf_subscription import own_user_url, subscription_down
from redis_server import RedisServer
from support import serve, wait_until

from nanohubmcp import Context, MCPServer
from nanohubmcp.state import open_shared
from nanohubmcp.state.base import session_key
from nanohubmcp.state.url import parse

pytestmark = pytest.mark.timeout(90)

NAME = "resubscribe"
USER = "asker"
QUESTION_SECONDS = 30
"""The question's timeout: well past the test's wait for the answer (a lost answer is the timeout's error)."""
SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def build(state_url: str, ends: list[str]) -> MCPServer:
    server = MCPServer(NAME, state_url=state_url)

    @server.tool()
    async def ask_name(ctx: Context) -> str:
        """Ask the user's name and greet them."""
        try:
            answer = await ctx.elicit("Your name?", SCHEMA, timeout=QUESTION_SECONDS)
        except TimeoutError as exc:  # (ClientRequestTimeout): said in the result, for the assertion
            return f"no answer: {exc}"
        return f"hello {answer['content']['name']}"

    add_count(server, ends)
    return server


def test_an_answer_relayed_while_the_askers_subscription_is_down_reaches_the_tool(redis_server: RedisServer) -> None:
    admin = redis.Redis.from_url(redis_server.url, decode_responses=True, socket_timeout=10)
    asker_url = own_user_url(admin, redis_server.url, USER)
    with serve(build(asker_url, [])) as asking, serve(build(redis_server.url, [])) as answering:
        session = wire.initialize(asking + "mcp", capabilities={"elicitation": {}})
        body = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "ask_name", "arguments": {}}}
        call = wire.Events("POST", asking + "mcp", wire.headers(session), body)
        try:
            assert call.status == 200
            _, question = call.next(step="the elicitation")
            assert question["method"] == "elicitation/create", question
            pending = f"nanohubmcp:{NAME}:p:{session_key(session)}:{question['id']}"
            assert admin.get(pending), "no pending question noted"
            with subscription_down(admin, USER):
                accepted = {"action": "accept", "content": {"name": "Ada"}}
                answer = {"jsonrpc": "2.0", "id": question["id"], "result": accepted}
                relayed = wire.httpx.post(answering + "mcp", json=answer, headers=wire.headers(session), timeout=10)
                assert relayed.status_code == 202, relayed.text
                kept = admin.pttl(f"nanohubmcp:{NAME}:a:{session_key(session)}:{question['id']}")
                assert 0 < kept <= (QUESTION_SECONDS + 1) * 1000, f"the kept answer lives {kept} ms: as its question"
            _, reply = call.next(timeout=20, step="the call's result, the answer read after the subscription")
            assert reply["result"]["content"][0]["text"] == "hello Ada", reply
            # The kept answer goes with its question.
            wait_until(lambda: not admin.keys(f"nanohubmcp:{NAME}:a:*"), "the kept answer deleted")
        finally:
            call.close()


def test_a_cancel_sent_while_the_runners_subscription_is_down_reaches_the_tool(redis_server: RedisServer) -> None:
    admin = redis.Redis.from_url(redis_server.url, decode_responses=True, socket_timeout=10)
    runner_url = own_user_url(admin, redis_server.url, USER)
    ends: list[str] = []
    with serve(build(runner_url, ends)) as running, serve(build(redis_server.url, [])) as other:
        session = wire.initialize(running + "mcp")
        params = {"name": "count", "arguments": {}, "_meta": {"progressToken": "c"}}
        body = {"jsonrpc": "2.0", "id": 43, "method": "tools/call", "params": params}
        call = wire.Events("POST", running + "mcp", wire.headers(session), body)
        try:
            assert call.status == 200
            _, first = call.next(step="the first progress")
            assert first["method"] == "notifications/progress", first
            with subscription_down(admin, USER):
                wire.notify(other + "mcp", session, "notifications/cancelled", {"requestId": 43, "reason": "stop"})
            wait_until(lambda: ends, "the call's end")
            assert ends == ["cancelled"], ends
        finally:
            call.close()


def test_an_answer_is_still_relayed_while_redis_refuses_writes(redis_server: RedisServer) -> None:
    """Keeping the answer is a write: a Redis refusing writes (``OOM``) still publishes it, as a PUBLISH alone did."""
    admin = redis.Redis.from_url(redis_server.url, decode_responses=True, socket_timeout=10)
    heard: list[tuple[str, str, dict[str, Any]]] = []

    async def scenario() -> bool:
        loop = asyncio.get_running_loop()
        asker, answerer = (open_shared(parse(redis_server.url), "full", idle_seconds=60) for _ in range(2))
        assert asker is not None
        assert answerer is not None
        asker.answers_to(lambda *answer: heard.append(answer))
        asker.start(loop)
        answerer.start(loop)
        try:
            await asker.put_pending("the-session", "srv-1", 30)
            channel = f"nanohubmcp:full:c:{asker.process}"
            while admin.pubsub_numsub(channel) != [(channel, 1)]:  # (a real wait: the subscription is made)
                await asyncio.sleep(0.02)
            admin.config_set("maxmemory-policy", "noeviction")
            admin.config_set("maxmemory", "1")
            try:
                relayed = await answerer.answer("the-session", "srv-1", {"jsonrpc": "2.0", "id": "srv-1", "result": {}})
                while not heard:
                    await asyncio.sleep(0.02)
            finally:
                admin.config_set("maxmemory", "0")
            return relayed
        finally:
            await asker.close()
            await answerer.close()

    assert asyncio.run(asyncio.wait_for(scenario(), 20)) is True
    assert heard == [("the-session", "srv-1", {"jsonrpc": "2.0", "id": "srv-1", "result": {}})]
