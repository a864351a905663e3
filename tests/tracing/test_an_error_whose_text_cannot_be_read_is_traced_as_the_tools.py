"""Under tracing, a tool's exception whose ``str()`` raises is still the tool's error, named by its type (review
r37 F7): the client's answer, a job's error and the span's status say ``BadStr (its message could not be read:
RuntimeError)``. The spans around the call (an ``execute_tool`` step, a job's run span) called ``str(exc)``
themselves while recording the failure: the ``__str__``'s own error escaped from the span's exit and replaced the
tool's (the answer said ``no text``)."""

from __future__ import annotations

import httpx2
import otel_sdk
import pytest
from support import rest_job_end, serve

from nanohubmcp import MCPServer
from nanohubmcp.server.wire import trace_context

SAID = "BadStr (its message could not be read: RuntimeError)"


class BadStr(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no text")


@pytest.mark.timeout(90)
def test_a_traced_call_and_job_answer_the_tools_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trace_context, "STEP_MIN_SECONDS", 0.0)  # every step a span (NANOHUBMCP_TRACING_STEP_MS=0)
    server = MCPServer("bad-str-traced", tracing=True, job_store="memory")

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

    with serve(server) as url:
        otel_sdk.clear()
        for name in ("badstr", "async_badstr"):
            body = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": name, "arguments": {}}}
            answer = httpx2.post(url + "mcp", json=body, timeout=60).json()
            assert answer["result"]["isError"], answer
            assert answer["result"]["content"][0]["text"] == SAID, (name, answer)
        started = httpx2.post(f"{url}tools/badstr_job", json={}, timeout=30).json()
        status = rest_job_end(url, started["job_id"])
    assert (status["status"], status["error"]) == ("error", SAID), status
    failed = {span["name"]: span for span in otel_sdk.finished() if span["status"] == "ERROR"}
    for name in ("badstr", "async_badstr", "badstr_job"):
        span = failed.get(f"execute_tool {name}")
        assert span is not None, sorted(failed)
        assert SAID in (span["description"] or ""), span
