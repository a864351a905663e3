"""The 2026-07-28 ``requestState``: an HMAC-signed state bound to its tool and arguments, short-lived,
good for one retry; refused (-32602) when tampered, replayed, moved to another call or expired."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import pytest
from modern_wire import Wire
from support import serve

from nanohubmcp import Context, MCPServer
from nanohubmcp.errors import ConfigurationError, InvalidParams
from nanohubmcp.server.asks.request_state import Binding, RequestStateCodec, arguments_digest

NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
COLOR = {"type": "object", "properties": {"color": {"type": "string"}}, "required": ["color"]}


def accept(**content: Any) -> dict[str, Any]:
    return {"action": "accept", "content": content}


def build(secret: str | None = None, auth: Any = None) -> MCPServer:
    server = MCPServer("stateful-inputs", state_secret=secret, auth=auth)

    @server.tool()
    def two_steps(ctx: Context, greeting: str = "Hello") -> str:
        """Ask a name, then a colour."""
        name = ctx.elicit("Name?", NAME, key="step1")["content"]["name"]
        color = ctx.elicit("Colour?", COLOR, key="step2")["content"]["color"]
        return f"{greeting} {name}, you like {color}"

    @server.tool()
    def other(ctx: Context, greeting: str = "Hello") -> str:
        """Same questions, another tool."""
        return two_steps(ctx, greeting)

    @server.tool()
    def clean_up(ctx: Context, folder: str) -> str:
        """Confirm deleting the folder's files (their number may change between rounds), then a name."""
        count = FILES[folder]
        sure = ctx.elicit(f"Delete the {count} files of {folder}?", SURE, key="confirm")
        if sure["action"] != "accept":
            return "kept"
        name = ctx.elicit("Your name, for the log?", NAME, key="who")["content"]["name"]
        return f"{name} deleted {count} files of {folder}"

    return server


SURE = {"type": "object", "properties": {"sure": {"type": "boolean"}}}
FILES = {"a": 3, "b": 3}
"""How many files each folder of ``clean_up`` holds (a test changes it between rounds)."""


@pytest.fixture(scope="module")
def wire() -> Iterator[Wire]:
    with serve(build()) as url:
        yield Wire(url + "mcp")


def call(wire: Wire, tool: str = "two_steps", **params: Any) -> Any:
    arguments = params.pop("arguments", {})
    return wire.call("tools/call", {"name": tool, "arguments": arguments, **params})


def first_round(wire: Wire, **arguments: Any) -> dict[str, Any]:
    result = call(wire, arguments=arguments).result
    assert result["resultType"] == "input_required"
    assert list(result["inputRequests"]) == ["step1"]
    return result


def test_earlier_answers_travel_in_the_state_and_each_round_gets_a_new_one(wire: Wire) -> None:
    r1 = first_round(wire)
    r2 = call(wire, inputResponses={"step1": accept(name="Ada")}, requestState=r1["requestState"]).result
    assert list(r2["inputRequests"]) == ["step2"]
    assert r2["requestState"] != r1["requestState"]
    # Round 3 answers only step2: step1's answer comes back from the signed state.
    r3 = call(wire, inputResponses={"step2": accept(color="teal")}, requestState=r2["requestState"]).result
    assert r3["resultType"] == "complete"
    assert r3["content"][0]["text"] == "Hello Ada, you like teal"


def test_an_answer_is_not_applied_to_a_request_other_than_the_one_it_answered(wire: Wire) -> None:
    """The request under a key changed between rounds ("delete 3 files?" became "delete 5 files?"):
    the answer to the old one — given in this round or carried from an earlier round — is not
    taken for the new one, which is asked. (Answers were matched by key alone.)"""
    FILES["a"] = 3
    r1 = call(wire, "clean_up", arguments={"folder": "a"}).result
    assert r1["inputRequests"]["confirm"]["params"]["message"] == "Delete the 3 files of a?"
    FILES["a"] = 5  # this round's answer is to "3 files"
    r2 = call(wire, "clean_up", arguments={"folder": "a"}, inputResponses={"confirm": accept(sure=True)},
              requestState=r1["requestState"]).result
    assert r2["resultType"] == "input_required", r2
    assert list(r2["inputRequests"]) == ["confirm"]
    assert r2["inputRequests"]["confirm"]["params"]["message"] == "Delete the 5 files of a?"
    r3 = call(wire, "clean_up", arguments={"folder": "a"}, inputResponses={"confirm": accept(sure=True)},
              requestState=r2["requestState"]).result
    assert list(r3["inputRequests"]) == ["who"]  # "5 files" confirmed
    FILES["a"] = 7  # the confirmation carried in the state is to "5 files"
    r4 = call(wire, "clean_up", arguments={"folder": "a"}, inputResponses={"who": accept(name="Ada")},
              requestState=r3["requestState"]).result
    assert r4["resultType"] == "input_required", r4
    assert r4["inputRequests"]["confirm"]["params"]["message"] == "Delete the 7 files of a?"
    r5 = call(wire, "clean_up", arguments={"folder": "a"}, inputResponses={"confirm": accept(sure=True)},
              requestState=r4["requestState"]).result
    assert list(r5["inputRequests"]) == ["who"]  # the run stopped at "confirm" before it used "who"
    r6 = call(wire, "clean_up", arguments={"folder": "a"}, inputResponses={"who": accept(name="Ada")},
              requestState=r5["requestState"]).result
    assert r6["content"][0]["text"] == "Ada deleted 7 files of a"


def test_an_unchanged_request_keeps_its_answers_across_rounds(wire: Wire) -> None:
    FILES["b"] = 3
    r1 = call(wire, "clean_up", arguments={"folder": "b"}).result
    r2 = call(wire, "clean_up", arguments={"folder": "b"}, inputResponses={"confirm": accept(sure=True)},
              requestState=r1["requestState"]).result
    r3 = call(wire, "clean_up", arguments={"folder": "b"}, inputResponses={"who": accept(name="Bo")},
              requestState=r2["requestState"]).result
    assert r3["content"][0]["text"] == "Bo deleted 3 files of b"


def tamper(state: str) -> str:
    version, body, mac = state.split(".")
    payload = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    payload["r"] = {"step1": accept(name="Mallory")}
    forged = base64.urlsafe_b64encode(json.dumps(payload).encode()).rstrip(b"=").decode()
    return f"{version}.{forged}.{mac}"


@pytest.mark.parametrize("mangle", [
    tamper,
    lambda s: s + "-TAMPERED",
    lambda s: s[:-2] + ("AA" if not s.endswith("AA") else "BB"),
    lambda s: "v1.e30.AAAA",
    lambda s: 42,
])
def test_a_tampered_state_is_refused(wire: Wire, mangle: Any) -> None:
    r1 = first_round(wire)
    reply = call(wire, inputResponses={"step1": accept(name="Ada")}, requestState=mangle(r1["requestState"]))
    assert reply.status == 200
    assert reply.error["code"] == -32602
    assert "requestState" in reply.error["message"]


def test_a_replayed_state_is_refused(wire: Wire) -> None:
    r1 = first_round(wire)
    retry = {"inputResponses": {"step1": accept(name="Ada")}, "requestState": r1["requestState"]}
    assert call(wire, **retry).result["resultType"] == "input_required"
    again = call(wire, **retry)
    assert again.error["code"] == -32602
    assert "already used" in again.error["message"]


@pytest.mark.parametrize(("tool", "arguments"), [("other", {}), ("two_steps", {"greeting": "Hi"})])
def test_a_state_is_bound_to_its_tool_and_arguments(wire: Wire, tool: str, arguments: dict[str, Any]) -> None:
    r1 = first_round(wire)
    reply = call(wire, tool, arguments=arguments, inputResponses={"step1": accept(name="Ada")},
                 requestState=r1["requestState"])
    assert reply.error["code"] == -32602
    assert "different request" in reply.error["message"]


def test_answers_of_the_current_round_need_no_state(wire: Wire) -> None:
    """requestState is optional (MCP 2026-07-28, Multi Round-Trip Requests): a client may answer
    ahead; SEP-2322's conformance scenarios expect the answers used and unknown keys ignored."""
    result = call(wire, inputResponses={"step1": accept(name="Ada"), "step2": accept(color="red"),
                                        "unrelated": {"anything": True}}).result
    assert result["content"][0]["text"] == "Hello Ada, you like red"


@pytest.mark.parametrize(("responses", "code"), [
    ({"step1": 12345}, -32602),
    ({"step1": {"action": "maybe"}}, -32602),
    (None, -32602),
    ([1, 2], -32602),
])
def test_malformed_input_responses_are_invalid_params(wire: Wire, responses: Any, code: int) -> None:
    assert call(wire, inputResponses=responses).error["code"] == code


def test_a_missing_answer_is_asked_again(wire: Wire) -> None:
    result = call(wire, inputResponses={"wrong_key": accept(name="x")}).result
    assert result["resultType"] == "input_required"
    assert list(result["inputRequests"]) == ["step1"]


def test_servers_sharing_a_secret_accept_each_others_states() -> None:
    secret = "a shared secret for both processes"
    with serve(build(secret)) as url_a, serve(build(secret)) as url_b, serve(build()) as url_c:
        a, b, c = Wire(url_a + "mcp"), Wire(url_b + "mcp"), Wire(url_c + "mcp")
        r1 = first_round(a)
        answer = {"inputResponses": {"step1": accept(name="Ada")}, "requestState": r1["requestState"]}
        assert call(c, **answer).error["code"] == -32602  # another key: not its state
        assert call(b, **answer).result["inputRequests"].keys() == {"step2"}


def test_the_codec_refuses_expired_and_foreign_states() -> None:
    binding = Binding("tools/call", "t", arguments_digest({"x": 1}))
    stale = RequestStateCodec(b"k" * 32, ttl=-1).issue(binding, {})
    with pytest.raises(InvalidParams, match="expired"):
        RequestStateCodec(b"k" * 32).verify(stale, binding)
    fresh = RequestStateCodec(b"k" * 32).issue(binding, {"a": 1})
    assert RequestStateCodec(b"k" * 32).verify(fresh, binding).answers == {"a": 1}
    with pytest.raises(InvalidParams, match="integrity"):
        RequestStateCodec(b"j" * 32).verify(fresh, binding)


def test_argument_digests_ignore_key_order() -> None:
    assert arguments_digest({"a": 1, "b": [1, 2]}) == arguments_digest({"b": [1, 2], "a": 1})
    assert arguments_digest({"a": 1}) != arguments_digest({"a": 2})


@pytest.mark.parametrize("secret", ["short", b"", 12345])
def test_a_weak_secret_is_refused_at_construction(secret: Any) -> None:
    with pytest.raises(ConfigurationError, match="state_secret"):
        MCPServer("weak", state_secret=secret)


def test_a_state_issued_to_one_caller_is_refused_for_another() -> None:
    """Bob, holding a state issued to Alice, cannot finish her call with her earlier answers (nor
    burn it): -32602, and Alice's own retry still works. Found by a new user's trial."""
    from nanohubmcp import StaticTokenVerifier

    with serve(build(auth=StaticTokenVerifier({"tok-alice": "alice", "tok-bob": "bob"}))) as url:
        wire = Wire(url + "mcp")

        def as_(token: str, **params: Any) -> Any:
            return wire.call("tools/call", {"name": "two_steps", "arguments": {}, **params},
                             headers={"Authorization": f"Bearer {token}"})

        r1 = as_("tok-alice").result
        r2 = as_("tok-alice", inputResponses={"step1": accept(name="Ada")},
                  requestState=r1["requestState"]).result
        stolen = as_("tok-bob", inputResponses={"step2": accept(color="red")},
                      requestState=r2["requestState"]).error
        assert stolen["code"] == -32602, stolen
        assert "issued to another caller" in stolen["message"], stolen
        r3 = as_("tok-alice", inputResponses={"step2": accept(color="teal")},
                  requestState=r2["requestState"]).result
        assert r3["content"][0]["text"] == "Hello Ada, you like teal"
