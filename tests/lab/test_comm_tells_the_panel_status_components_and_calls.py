"""The kernel side of the JupyterLab panel (``nanohubmcp.jupyter.comm``), with a real kernel and no browser.

The test client plays the panel: it opens a comm to ``nanohubmcp`` on the shell channel and reads
``status``/``components``/``calls`` messages from iopub, while the official ``mcp`` client calls
the server the notebook's ``%%mcp_tool`` cells built.
"""

from __future__ import annotations

import pytest
from comm_kernel import CommKernel, call, finished, open_panel

pytestmark = pytest.mark.slow

LOAD = "%load_ext nanohubmcp\n%config NanohubMCP.port = 0"
ADD = '''%%mcp_tool
def add(a: float, b: float) -> float:
    """Add two numbers.

    More words that the panel does not show.
    """
    return a + b
'''
BROKEN = '''%%mcp_tool
def broken(x: int) -> int:
    """Always fails."""
    raise ValueError("no good")
'''


def test_without_the_extension_the_kernel_closes_the_panels_comm(comm_kernel: CommKernel) -> None:
    comm_id = comm_kernel.open_comm()
    closed = comm_kernel.wait_closed(comm_id)
    assert closed["parent_header"]["msg_type"] == "comm_open"


def test_the_kernel_never_opens_a_comm_to_the_front_end(comm_kernel: CommKernel) -> None:
    # A front end without the panel (classic Notebook, VS Code) would log an unknown comm target.
    comm_kernel.run(LOAD)
    comm_kernel.run(ADD)  # starts the server
    comm_kernel.run("1")  # iopub is ordered: everything the earlier cells sent is in by now
    opened = [m for m in comm_kernel.comm_messages if m["msg_type"] == "comm_open"]
    assert opened == []


def test_an_open_panel_sees_the_server_its_tools_and_each_call(comm_kernel: CommKernel) -> None:
    comm_kernel.run(LOAD)
    comm_id, status, components, calls = open_panel(comm_kernel)
    assert status["loaded"] is True
    assert status["running"] is False
    assert status["endpoints"] == []
    assert components == {"type": "components", "tools": [], "resources": [], "prompts": []}
    assert calls["reset"] is True
    assert calls["calls"] == []
    assert calls["capacity"] == 200

    since = comm_kernel.mark()
    comm_kernel.run(ADD)
    status = comm_kernel.wait_data(comm_id, "status", since, where=lambda d: d["running"])
    assert status["mcp_url"].startswith("http://127.0.0.1:")
    assert status["mcp_url"] == status["public_url"] + "mcp"
    assert status["hub"] is False
    assert {e["label"]: e["url"] for e in status["endpoints"]}["Streamable HTTP"] == status["mcp_url"]
    components = comm_kernel.wait_data(comm_id, "components", since, where=lambda d: d["tools"])
    assert components["tools"] == [
        {"name": "add", "title": None, "description": "Add two numbers.", "runs": "pool"}
    ]

    comm_kernel.run(BROKEN)
    since = comm_kernel.mark()
    results = call(status["mcp_url"], ("add", {"a": 2, "b": 3}), ("broken", {"x": 1}))
    assert float(results[0].content[0].text) == 5
    assert results[1].is_error is True
    done = finished(comm_kernel, comm_id, since, 2)
    first, second = (done[key] for key in sorted(done))
    assert first["method"] == "tools/call"
    assert first["name"] == "add"
    assert first["ok"] is True
    assert first["error"] is None
    assert first["duration_ms"] > 0
    assert first["time"] > 1.6e9
    assert second["name"] == "broken"
    assert second["ok"] is False
    assert "no good" in second["error"]
    assert second["id"] > first["id"]


def test_refresh_resends_everything_and_clear_empties_the_log(comm_kernel: CommKernel) -> None:
    comm_kernel.run(LOAD)
    comm_kernel.run(ADD)
    comm_id, status, _, _ = open_panel(comm_kernel)
    since = comm_kernel.mark()
    call(status["mcp_url"], ("add", {"a": 1, "b": 1}))
    finished(comm_kernel, comm_id, since, 1)

    since = comm_kernel.mark()
    comm_kernel.send(comm_id, {"type": "refresh"})
    assert comm_kernel.wait_data(comm_id, "status", since)["running"] is True
    assert [t["name"] for t in comm_kernel.wait_data(comm_id, "components", since)["tools"]] == ["add"]
    log = comm_kernel.wait_data(comm_id, "calls", since)
    assert log["reset"] is True
    assert [(c["name"], c["ok"]) for c in log["calls"]] == [("add", True)]

    since = comm_kernel.mark()
    comm_kernel.send(comm_id, {"type": "clear"})
    cleared = comm_kernel.wait_data(comm_id, "calls", since)
    assert cleared == {"type": "calls", "reset": True, "capacity": 200, "stuck": 0, "calls": []}


def test_nothing_is_recorded_while_no_panel_listens(comm_kernel: CommKernel) -> None:
    comm_kernel.run(LOAD)
    comm_kernel.run(ADD)
    url = comm_kernel.evaluate("get_ipython().run_line_magic('mcp', 'url')")
    call(url, ("add", {"a": 1, "b": 2}))  # nobody listens: not recorded
    link = "__import__('nanohubmcp.jupyter.comm', fromlist=['_LINKS'])._LINKS"
    assert comm_kernel.evaluate(f"[(p.listening, len(p.calls)) for p in {link}.values()]") == [(False, 0)]

    comm_id, _, _, log = open_panel(comm_kernel)
    assert log["calls"] == []
    since = comm_kernel.mark()
    call(url, ("add", {"a": 3, "b": 4}))
    finished(comm_kernel, comm_id, since, 1)

    comm_kernel.close_comm(comm_id)
    comm_kernel.run("pass")  # the close is handled before this cell runs
    assert comm_kernel.evaluate(f"[(p.listening, len(p.calls)) for p in {link}.values()]") == [(False, 1)]
    call(url, ("add", {"a": 5, "b": 6}))  # the panel is gone: not recorded either
    _, _, _, log = open_panel(comm_kernel)
    assert [c["name"] for c in log["calls"]] == ["add"]


def test_the_log_keeps_only_the_latest_calls(comm_kernel: CommKernel) -> None:
    comm_kernel.run("import nanohubmcp.jupyter.comm as panel_comm\npanel_comm.LOG_SIZE = 3")
    comm_kernel.run(LOAD)
    comm_kernel.run(ADD)
    comm_id, status, _, log = open_panel(comm_kernel)
    assert log["capacity"] == 3
    since = comm_kernel.mark()
    call(status["mcp_url"], *[("add", {"a": i, "b": 0}) for i in range(5)])
    finished(comm_kernel, comm_id, since, 5)

    since = comm_kernel.mark()
    comm_kernel.send(comm_id, {"type": "refresh"})
    log = comm_kernel.wait_data(comm_id, "calls", since)
    assert len(log["calls"]) == 3
    ids = [c["id"] for c in log["calls"]]
    assert ids == sorted(ids)
    assert ids[-1] - ids[0] == 2


def test_two_panels_both_hear_every_call(comm_kernel: CommKernel) -> None:
    comm_kernel.run(LOAD)
    comm_kernel.run(ADD)
    first, status, _, _ = open_panel(comm_kernel)
    second, _, _, _ = open_panel(comm_kernel)
    since = comm_kernel.mark()
    call(status["mcp_url"], ("add", {"a": 1, "b": 2}))
    assert [c["name"] for c in finished(comm_kernel, first, since, 1).values()] == ["add"]
    assert [c["name"] for c in finished(comm_kernel, second, since, 1).values()] == ["add"]


def test_unload_reload_and_a_renamed_server_keep_the_panel_current(comm_kernel: CommKernel) -> None:
    comm_kernel.run(LOAD)
    comm_kernel.run(ADD)
    comm_id, _, _, _ = open_panel(comm_kernel)

    since = comm_kernel.mark()
    comm_kernel.run("%unload_ext nanohubmcp")
    assert comm_kernel.wait_data(comm_id, "status", since) == {"type": "status", "loaded": False}

    since = comm_kernel.mark()
    comm_kernel.run(LOAD)
    status = comm_kernel.wait_data(comm_id, "status", since)
    assert status["loaded"] is True
    assert status["running"] is False
    comm_kernel.run(ADD)

    since = comm_kernel.mark()
    comm_kernel.run("%config NanohubMCP.name = 'renamed'")  # rebuilds the server object
    status = comm_kernel.wait_data(comm_id, "status", since, where=lambda d: d["name"] == "renamed")
    assert status["running"] is True
    since = comm_kernel.mark()
    call(status["mcp_url"], ("add", {"a": 1, "b": 2}))
    assert [c["name"] for c in finished(comm_kernel, comm_id, since, 1).values()] == ["add"]


STEPS = '''%%mcp_tool
def steps(ctx: Context, n: int = 4) -> str:
    """Report progress n times."""
    for i in range(1, n + 1):
        time.sleep(0.1)
        ctx.report_progress(i, n, f"step {i}")
    return "stepped"
'''
SLEEPER = '''%%mcp_tool
def sleeper(seconds: float) -> str:
    """Sleep, ignoring cancellation."""
    time.sleep(seconds)
    return "slept"
'''


def test_running_calls_carry_their_progress_and_the_stuck_count_reaches_the_panel(comm_kernel: CommKernel) -> None:
    comm_kernel.run(LOAD + "\nimport time\nfrom nanohubmcp import Context")
    comm_kernel.run(ADD)
    comm_kernel.run(STEPS)
    comm_kernel.run(SLEEPER)
    comm_id, status, _, calls = open_panel(comm_kernel)
    assert calls["stuck"] == 0
    since = comm_kernel.mark()
    assert call(status["mcp_url"], ("steps", {"n": 4}))[0].content[0].text == "stepped"
    (final,) = finished(comm_kernel, comm_id, since, 1).values()
    assert (final["progress"], final["total"], final["message"]) == (4, 4, "step 4")
    entries = [e for d in comm_kernel.data_since(comm_id, since) if d["type"] == "calls" for e in d["calls"]]
    running = [e for e in entries if e["ok"] is None and e.get("progress") is not None]
    assert running, entries  # the panel saw the call running with progress
    assert all(e["total"] == 4 for e in running)
    assert running[-1]["message"] == f"step {running[-1]['progress']:g}"

    comm_kernel.run("%config NanohubMCP.tool_timeout = 0.5")
    timed_out = call(status["mcp_url"], ("sleeper", {"seconds": 4}))[0]
    assert timed_out.is_error is True
    since = comm_kernel.mark()
    call(status["mcp_url"], ("add", {"a": 1, "b": 1}))
    stuck = comm_kernel.wait_data(comm_id, "calls", since, where=lambda d: d["stuck"] >= 1)
    assert stuck["stuck"] == 1
