"""A tool's exception whose ``str()`` raises is the tool's error, named by its type: ``BadStr (its message
could not be read: RuntimeError)``, an ``isError`` result over MCP, REST's tool-error answer (500 with the text, by
the REST ruling) and a job's error (review r36 F4).

``errors.message_of`` called ``str(exc)`` unguarded inside the call's ``except``: the secondary error escaped,
and the call was ``-32603 Internal error; see the server log`` (REST: ``{"error": "Internal error; see the
server log"}``), a job ended with the secondary error's text. A resource's or a prompt's read or get still ended
so (review r37 F7: the failure's text was made with ``{exc}``): it is that failure's error, ``Reading <uri> failed:
BadStr (...)`` / ``Prompt '<name>' failed: BadStr (...)``, and a call observer (the lab panel) is told the same.
"""

from __future__ import annotations

from pathlib import Path

import httpx2
from support import post_rpc, rest_job_end, serve
from tool_errors import error_texts

from nanohubmcp import MCPServer
from nanohubmcp.errors import message_of, text_of

SAID = "BadStr (its message could not be read: RuntimeError)"


class BadStr(Exception):
    def __str__(self) -> str:
        raise RuntimeError("str broke")


def build(state_dir: Path) -> MCPServer:
    server = MCPServer("bad-str", state_dir=state_dir)

    @server.tool()
    def badstr() -> str:
        """Raises an exception whose text cannot be read."""
        raise BadStr("a")

    @server.tool()
    async def async_badstr() -> str:
        """The same, awaited."""
        raise BadStr("a")

    @server.async_tool()
    def badstr_job() -> str:
        """The same, as a job."""
        raise BadStr("a")

    @server.resource("data://bad")
    def bad_resource() -> str:
        """The same, read."""
        raise BadStr("a")

    @server.prompt()
    async def bad_prompt() -> str:
        """The same, got."""
        raise BadStr("a")

    return server


def test_message_of_names_the_type_when_str_raises() -> None:
    assert message_of(BadStr("a")) == SAID
    assert text_of(BadStr("a")) == SAID
    assert message_of(ValueError(BadStr("x"), 2)) == "ValueError (its message could not be read: RuntimeError)"


def test_every_route_answers_it_as_the_tools_error(tmp_path: Path) -> None:
    with serve(build(tmp_path)) as url:
        assert error_texts(url, ("badstr", "async_badstr")) == {"badstr": SAID, "async_badstr": SAID}
        for name in ("badstr", "async_badstr"):
            response = httpx2.post(f"{url}tools/{name}", json={}, timeout=30)
            assert (response.status_code, response.json()) == (500, {"error": SAID}), name
        started = httpx2.post(f"{url}tools/badstr_job", json={}, timeout=30).json()
        status = rest_job_end(url, started["job_id"])
        assert (status["status"], status["error"]) == ("error", SAID)


def test_a_resource_or_prompt_answers_it_as_its_failure(tmp_path: Path) -> None:
    server = build(tmp_path)
    told: list[tuple[str, object]] = []
    server.events.subscribe(lambda event, data: told.append((data["name"], data["error"])), ["call_finished"])
    with serve(server) as url:
        read = post_rpc(url, "resources/read", {"uri": "data://bad"}, timeout=30)
        got = post_rpc(url, "prompts/get", {"name": "bad_prompt"}, timeout=30)
    assert read["error"] == {"code": -32603, "message": f"Reading data://bad failed: {SAID}",
                             "data": {"uri": "data://bad"}}, read
    assert got["error"] == {"code": -32603, "message": f"Prompt 'bad_prompt' failed: {SAID}"}, got
    assert told == [("data://bad", SAID), ("bad_prompt", SAID)], told
