"""The panel follows a server a notebook started with plain ``server.run()``, without ``%load_ext``.

The test client plays the panel over the ``nanohubmcp`` comm of a real kernel (no browser); the
official ``mcp`` client calls the server the cell started. A ``%load_ext nanohubmcp`` session,
when there is one, is the notebook's main server and takes the panel over.
"""

from __future__ import annotations

from typing import Any

import pytest
from comm_kernel import CommKernel, call, open_panel
from comm_kernel import finished as finished_by_id

pytestmark = pytest.mark.slow

SCRIPT = '''
from nanohubmcp import MCPServer

server = MCPServer("{name}", version="2.0.0")

@server.tool()
def greet(name: str) -> str:
    """Greet someone.

    Words the panel does not show.
    """
    if not name:
        raise ValueError("nobody to greet")
    return "{greeting}, " + name

@server.resource("data://numbers")
def numbers() -> str:
    """Some numbers."""
    return "1 2 3"

@server.prompt()
def ask(topic: str) -> str:
    """Ask about a topic."""
    return "Tell me about " + topic

server.run(port={port})
'''
LOAD = "%load_ext nanohubmcp\n%config NanohubMCP.port = 0"
ADD = '''%%mcp_tool
def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b
'''
LINKS = "__import__('nanohubmcp.jupyter.comm', fromlist=['_LINKS'])._LINKS"


def script(name: str = "plain-script", greeting: str = "Hello", port: Any = 0) -> str:
    return SCRIPT.format(name=name, greeting=greeting, port=port)


def finished(kernel: CommKernel, comm_id: str, since: int, count: int) -> list[dict[str, Any]]:
    """The ``count`` finished calls that arrived on ``comm_id`` after ``since``, oldest first."""
    done = finished_by_id(kernel, comm_id, since, count)
    return [done[key] for key in sorted(done)]


def status_after(kernel: CommKernel, comm_id: str, cell: str, where: Any = lambda data: True) -> dict[str, Any]:
    """Run ``cell``; returns the first status sent after it started that passes ``where``."""
    since = kernel.mark()
    kernel.run(cell)
    return kernel.wait_data(comm_id, "status", since, timeout=30, where=where)


def test_a_panel_sees_the_server_run_started_its_components_and_each_call(comm_kernel: CommKernel) -> None:
    comm_kernel.run(script())
    comm_id, status, components, log = open_panel(comm_kernel)
    assert status["loaded"] is True
    assert status["running"] is True
    assert status["name"] == "plain-script"
    assert status["version"] == "2.0.0"
    assert status["mode"] == "thread"
    assert status["host"] == "127.0.0.1"
    assert status["mcp_url"].startswith("http://127.0.0.1:")
    assert status["mcp_url"] == status["public_url"] + "mcp"
    assert status["port"] == int(status["public_url"].rsplit(":", 1)[1].strip("/"))
    assert status["hub"] is False
    assert {e["label"]: e["url"] for e in status["endpoints"]}["Streamable HTTP"] == status["mcp_url"]
    assert components == {
        "type": "components",
        "tools": [{"name": "greet", "title": None, "description": "Greet someone.", "runs": "server"}],
        "resources": [{"uri": "data://numbers", "name": "numbers", "description": "Some numbers.",
                       "template": False}],
        "prompts": [{"name": "ask", "description": "Ask about a topic."}],
    }
    assert log == {"type": "calls", "reset": True, "capacity": 200, "stuck": 0, "calls": []}

    since = comm_kernel.mark()
    results = call(status["mcp_url"], ("greet", {"name": "Ada"}), ("greet", {"name": ""}))
    assert results[0].content[0].text == "Hello, Ada"
    assert results[1].is_error is True
    first, second = finished(comm_kernel, comm_id, since, 2)
    assert (first["method"], first["name"], first["ok"], first["error"]) == ("tools/call", "greet", True, None)
    assert first["duration_ms"] > 0
    assert first["time"] > 1.6e9
    assert (second["name"], second["ok"]) == ("greet", False)
    assert "nobody to greet" in second["error"]
    assert second["id"] > first["id"]

    since = comm_kernel.mark()
    comm_kernel.run('@server.tool()\ndef later() -> str:\n    """Added after run()."""\n    return "x"')
    components = comm_kernel.wait_data(comm_id, "components", since, timeout=30)
    assert [t["name"] for t in components["tools"]] == ["greet", "later"]


def test_a_panel_that_heard_not_loaded_connects_after_run_starts_a_server(comm_kernel: CommKernel) -> None:
    early = comm_kernel.open_comm()
    comm_kernel.wait_closed(early)  # nothing to show yet: the panel says "not loaded"

    since = comm_kernel.mark()
    comm_kernel.run(script())  # the panel opens its comm again after a cell with .run( (link.ts)
    assert not [m for m in comm_kernel.comm_messages[since:] if m["msg_type"] == "comm_open"]  # no announcement
    _, status, _, _ = open_panel(comm_kernel)
    assert (status["loaded"], status["running"], status["name"]) == (True, True, "plain-script")


def test_rerunning_the_cell_rebinds_the_panel_and_stop_shows_it_stopped(comm_kernel: CommKernel) -> None:
    comm_kernel.run(script())
    comm_id, status, _, _ = open_panel(comm_kernel)
    port = status["port"]

    status = status_after(comm_kernel, comm_id, script(name="edited", greeting="Howdy", port=port),
                          where=lambda d: d.get("name") == "edited" and d["running"])
    assert status["port"] == port
    since = comm_kernel.mark()
    assert call(status["mcp_url"], ("greet", {"name": "Ada"}))[0].content[0].text == "Howdy, Ada"
    assert [c["name"] for c in finished(comm_kernel, comm_id, since, 1)] == ["greet"]

    status = status_after(comm_kernel, comm_id, "server.stop()", where=lambda d: not d.get("running", True))
    assert status["loaded"] is True
    assert status["name"] == "edited"
    assert status["endpoints"] == []
    since = comm_kernel.mark()
    comm_kernel.send(comm_id, {"type": "refresh"})
    assert comm_kernel.wait_data(comm_id, "status", since, timeout=30)["running"] is False
    log = comm_kernel.wait_data(comm_id, "calls", since, timeout=30)
    assert [c["name"] for c in log["calls"]] == ["greet"]  # the log outlives the server it recorded


def test_load_ext_takes_the_panel_over_and_unload_falls_back_to_the_running_server(
    comm_kernel: CommKernel,
) -> None:
    comm_kernel.run(script())
    comm_id, plain, _, _ = open_panel(comm_kernel)

    status = status_after(comm_kernel, comm_id, LOAD)
    assert status["loaded"] is True
    assert status["running"] is False
    assert status["name"] != "plain-script"
    since = comm_kernel.mark()
    comm_kernel.run(ADD)
    status = comm_kernel.wait_data(comm_id, "status", since, timeout=30, where=lambda d: d["running"])
    components = comm_kernel.wait_data(comm_id, "components", since, timeout=30, where=lambda d: d["tools"])
    assert [t["name"] for t in components["tools"]] == ["add"]
    comm_kernel.run("server.run(port=0)")  # a plain server started while the session leads: no take-over
    since = comm_kernel.mark()
    call(status["mcp_url"], ("add", {"a": 1, "b": 2}))
    call(comm_kernel.evaluate("server.url") + "mcp", ("greet", {"name": "Ada"}))  # not followed: not logged
    assert [c["name"] for c in finished(comm_kernel, comm_id, since, 1)] == ["add"]
    since = comm_kernel.mark()
    comm_kernel.send(comm_id, {"type": "refresh"})
    assert comm_kernel.wait_data(comm_id, "status", since, timeout=30)["name"] == status["name"]
    assert [c["name"] for c in comm_kernel.wait_data(comm_id, "calls", since, timeout=30)["calls"]] == ["add"]

    since = comm_kernel.mark()
    comm_kernel.run("%unload_ext nanohubmcp")
    status = comm_kernel.wait_data(comm_id, "status", since, timeout=30,
                                   where=lambda d: d.get("name") == "plain-script")
    assert status["loaded"] is True
    assert status["running"] is True
    assert status["port"] != plain["port"]  # where the latest server.run() serves
    components = comm_kernel.wait_data(comm_id, "components", since, timeout=30)
    assert [t["name"] for t in components["tools"]] == ["greet"]
    since = comm_kernel.mark()
    call(status["mcp_url"], ("greet", {"name": "Ada"}))
    assert [c["name"] for c in finished(comm_kernel, comm_id, since, 1)] == ["greet"]


def test_unload_with_the_plain_server_stopped_says_not_loaded(comm_kernel: CommKernel) -> None:
    comm_kernel.run(script())
    comm_kernel.run("server.stop()")
    comm_id, status, _, _ = open_panel(comm_kernel)
    assert (status["loaded"], status["running"]) == (True, False)

    assert status_after(comm_kernel, comm_id, LOAD)["loaded"] is True
    status = status_after(comm_kernel, comm_id, "%unload_ext nanohubmcp")
    assert status == {"type": "status", "loaded": False}


def test_nothing_is_subscribed_or_recorded_while_no_panel_listens_to_the_plain_server(
    comm_kernel: CommKernel,
) -> None:
    comm_kernel.run(script())
    url = comm_kernel.evaluate("server.url") + "mcp"
    call(url, ("greet", {"name": "Ada"}))  # nobody listens
    assert comm_kernel.evaluate("server.events.active") is False
    assert comm_kernel.evaluate(f"[(p.listening, len(p.calls)) for p in {LINKS}.values()]") == [(False, 0)]

    comm_id, _, _, log = open_panel(comm_kernel)
    assert log["calls"] == []
    assert comm_kernel.evaluate("server.events.active") is True
    comm_kernel.close_comm(comm_id)
    comm_kernel.run("pass")  # the close is handled before this cell runs
    assert comm_kernel.evaluate("server.events.active") is False


def test_reload_ext_over_a_plain_server_never_shows_not_loaded_or_the_plain_server(
    comm_kernel: CommKernel,
) -> None:
    comm_kernel.run(script())
    comm_kernel.run(LOAD)
    comm_id, status, _, _ = open_panel(comm_kernel)
    session_name = status["name"]
    assert session_name != "plain-script"

    since = comm_kernel.mark()
    comm_kernel.run("%reload_ext nanohubmcp")
    comm_kernel.run("pass")  # what the unload deferred is sent before this cell runs
    sent = [d for d in comm_kernel.data_since(comm_id, since) if d["type"] == "status"]
    assert sent
    assert all(d["loaded"] and d["name"] == session_name for d in sent)
