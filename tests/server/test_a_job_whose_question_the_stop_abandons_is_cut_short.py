"""A job waiting in ``ctx.elicit()`` when a SIGTERM stop cancels it hears of the cancel (the question is
abandoned: ``ClientRequestError``): it saw the cancel, so whatever it returns then is the server's stop, stored
``failed`` as one that looked at ``ctx.is_cancelled()`` is — not ``completed`` with the default it fell back to
(review r32 F5: ``CancelFlag.seen`` stayed False there; a function that never saw the cancel and returned within
the stop's wait is still stored completed, ``test_a_job_that_returns_within_the_stops_wait_is_stored_completed``).

A real ``nanohubmcp run`` process, a real client session over HTTP (the question read from its GET stream, never
answered), SIGTERM, restarted on the same state folder; real SQLite.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from streams.stream_wire import Wire
from support import app_server, post_tool, wait_until

pytestmark = pytest.mark.timeout(120)

APP = """
from nanohubmcp import Context, MCPServer
from nanohubmcp.errors import ClientRequestError

server = MCPServer("asker")


@server.async_tool()
def ask(ctx: Context) -> dict:
    '''Asks the user a name; a default when the question is abandoned.'''
    print("ask: asking", flush=True)
    try:
        ctx.elicit("Name?", {"type": "object", "properties": {"name": {"type": "string"}}}, timeout=60)
    except ClientRequestError as exc:
        print(f"ask: {exc}", flush=True)
        return {"name": "default"}
    return {"name": "given"}
"""


def test_a_job_whose_elicitation_the_stop_abandons_is_stored_as_cut_short(tmp_path: Path) -> None:
    app = tmp_path / "asker_app.py"
    app.write_text(APP)
    state = tmp_path / "state"
    with app_server(app, "--state-dir", str(state), log=tmp_path / "first.log") as served:
        wire = Wire(served.url)
        session = wire.initialize(capabilities={"elicitation": {}})
        questions = wire.listen(session)
        answer = wire.request("tools/call", {"name": "ask", "arguments": {}}, session)
        job_id = answer["result"]["structuredContent"]["job_id"]
        asked = questions.next_message()
        assert asked is not None
        assert asked["method"] == "elicitation/create", asked
        wait_until(lambda: "ask: asking" in served.output, "the job asks")
        served.process.send_signal(signal.SIGTERM)
        code = served.process.wait(30)
        output = served.output
        questions.close()
    assert code == 0, output
    assert "ask: elicitation/create was abandoned: the request was cancelled" in output, output

    with app_server(app, "--state-dir", str(state), log=tmp_path / "second.log") as again:
        answer = post_tool(again.url, "get_job_result", {"job_id": job_id})
        again.process.send_signal(signal.SIGTERM)
        again.process.wait(30)
    # Before: {"status": "done", "job_id": ..., "result": {"name": "default"}}
    assert answer["status"] == "error", answer
    assert "the server stopped while this job ran" in answer["error"], answer
