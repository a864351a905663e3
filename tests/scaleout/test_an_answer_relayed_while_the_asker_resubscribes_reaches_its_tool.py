"""A client's answer to a tool's question (elicitation) that reaches another process while the asking process's
pub/sub subscription is being made again still reaches the tool, not its timeout.

The answering process relayed it with a PUBLISH alone: heard by no subscriber (the asker's subscription lost, not
yet made again), it was lost, and the tool waited until its question timed out. The answer is now also kept in
Redis beside the pending request (``a:<session>:<request>``, for as long as the question waits), and the asker
reads the answers of its pending questions each time its subscription is made.

The window is made, not hoped for: the asking process connects as a Redis user of its own, whose ``SUBSCRIBE`` is
taken away (ACL) before its subscription is killed (``CLIENT KILL USER ... TYPE pubsub``), so it cannot subscribe
again until the test gives the command back, after the answer was relayed.
"""

from __future__ import annotations

import pytest
import redis
import wire
from redis_server import RedisServer
from support import serve, wait_until

from nanohubmcp import Context, MCPServer

pytestmark = pytest.mark.timeout(90)

NAME = "resubscribe"
USER = "asker"
QUESTION_SECONDS = 30
"""The question's timeout: well past the test's wait for the answer (a lost answer is the timeout's error)."""
SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def build(state_url: str) -> MCPServer:
    server = MCPServer(NAME, state_url=state_url)

    @server.tool()
    async def ask_name(ctx: Context) -> str:
        """Ask the user's name and greet them."""
        try:
            answer = await ctx.elicit("Your name?", SCHEMA, timeout=QUESTION_SECONDS)
        except TimeoutError as exc:  # (ClientRequestTimeout): said in the result, for the assertion
            return f"no answer: {exc}"
        return f"hello {answer['content']['name']}"

    return server


def test_an_answer_relayed_while_the_askers_subscription_is_down_reaches_the_tool(redis_server: RedisServer) -> None:
    admin = redis.Redis.from_url(redis_server.url, decode_responses=True, socket_timeout=10)
    admin.acl_setuser(USER, enabled=True, passwords=["+secret"], keys=["*"], channels=["*"], commands=["+@all"])
    asker_url = redis_server.url.replace("redis://", f"redis://{USER}:secret@", 1)
    with serve(build(asker_url)) as asking, serve(build(redis_server.url)) as answering:
        session = wire.initialize(asking + "mcp", capabilities={"elicitation": {}})
        body = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "ask_name", "arguments": {}}}
        call = wire.Events("POST", asking + "mcp", wire.headers(session), body)
        try:
            assert call.status == 200
            _, question = call.next(step="the elicitation")
            assert question["method"] == "elicitation/create", question
            owner = admin.get(f"nanohubmcp:{NAME}:p:{session}:{question['id']}")
            assert owner, "the asking process noted no pending question"
            channel = f"nanohubmcp:{NAME}:c:{owner}"

            # The asking process's subscription is lost and cannot be made again for now.
            admin.acl_setuser(USER, enabled=True, commands=["-subscribe"])
            assert admin.execute_command("CLIENT", "KILL", "USER", USER, "TYPE", "pubsub") >= 1
            wait_until(lambda: admin.pubsub_numsub(channel) == [(channel, 0)], "the subscription gone")

            accepted = {"action": "accept", "content": {"name": "Ada"}}
            answer = {"jsonrpc": "2.0", "id": question["id"], "result": accepted}
            relayed = wire.httpx.post(answering + "mcp", json=answer, headers=wire.headers(session), timeout=10)
            assert relayed.status_code == 202, relayed.text
            kept = admin.pttl(f"nanohubmcp:{NAME}:a:{session}:{question['id']}")
            assert 0 < kept <= (QUESTION_SECONDS + 1) * 1000, f"the kept answer lives {kept} ms: as its question"

            admin.acl_setuser(USER, enabled=True, commands=["+subscribe"])
            wait_until(lambda: admin.pubsub_numsub(channel) == [(channel, 1)], "the subscription made again")
            _, reply = call.next(timeout=20, step="the call's result, the answer read after the subscription")
            assert reply["result"]["content"][0]["text"] == "hello Ada", reply
            # The kept answer goes with its question.
            wait_until(lambda: not admin.keys(f"nanohubmcp:{NAME}:a:*"), "the kept answer deleted")
        finally:
            call.close()
