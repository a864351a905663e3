"""A server that owns its process (``server.run()``, ``nanohubmcp run``) takes what its start made out of the
cyclic garbage collector's full passes; a server on a thread of someone else's process leaves its collector alone.

Each full (generation 2) pass walked every object the start made (~40,000 for a small server): 12-55 ms with the
event loop held, every few seconds under load, and each request in flight waited that long (the c=64 tail in
bench/findings.md). Once serving, the start-up's objects (the modules, the server, its tools) are in the
permanent generation (``gc.freeze``), and a full pass walks only what serving made since. A notebook's server
(``server.start()``, a thread of the kernel's process) freezes nothing: that process's objects are its user's.

Source: Python's ``gc.freeze`` (objects moved to the permanent generation are ignored by future collections).
"""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest
from support import call_tool_http, script_server, serve

from nanohubmcp import MCPServer

pytestmark = pytest.mark.timeout(120)

SERVER = """
import gc

from nanohubmcp import MCPServer

server = MCPServer("heap")


@server.tool()
def heap() -> dict:
    '''What the collector walks in a full pass, and whether this server and this tool are in it.'''
    walked = gc.get_objects()
    return {
        "frozen": gc.get_freeze_count(),
        "walked": len(walked),
        "server walked": any(each is server for each in walked),
        "tool walked": any(each is heap for each in walked),
    }


server.run(host="127.0.0.1", port=0)
"""


def test_a_served_processs_start_up_is_frozen(tmp_path: Path) -> None:
    with script_server(SERVER, directory=tmp_path) as served:
        result = json.loads(call_tool_http(served.url, "heap")["content"][0]["text"])
    assert result["server walked"] is False, result
    assert result["tool walked"] is False, result
    assert result["frozen"] > 10_000, result  # the modules, Tornado's application, the registry
    assert result["walked"] < result["frozen"], result


def test_a_server_on_a_thread_freezes_nothing() -> None:
    server = MCPServer("thread")
    frozen_before = gc.get_freeze_count()

    @server.tool()
    def frozen() -> int:
        """How many objects the collector ignores."""
        return gc.get_freeze_count()

    with serve(server) as url:
        assert call_tool_http(url, "frozen")["content"][0]["text"] == str(frozen_before)


AFTER = SERVER.replace('server.run(host="127.0.0.1", port=0)', '''server.run(host="127.0.0.1", port=0)
print("frozen after run():", gc.get_freeze_count(), flush=True)
''')


@pytest.mark.skipif(not hasattr(__import__("signal"), "SIGTERM"), reason="POSIX signals")
def test_what_serving_froze_is_the_collectors_again_once_run_returns(tmp_path: Path) -> None:
    """Review r25 LOW-2: the start-up stayed frozen after ``run()`` returned, for the script's own after-work."""
    import signal

    from support import wait_until

    with script_server(AFTER, directory=tmp_path) as served:
        assert json.loads(call_tool_http(served.url, "heap")["content"][0]["text"])["frozen"] > 10_000
        served.process.send_signal(signal.SIGTERM)
        served.process.wait(30)
        line = wait_until(lambda: next((each for each in served.log.read_text().splitlines()
                                        if each.startswith("frozen after run():")), None), "the after-work's line")
    assert line == "frozen after run(): 0"


PAUSED = '''
import gc

from nanohubmcp import MCPServer

server = MCPServer("paused")
passes = []  # (generation) of each collection that began after run() was called and before the freeze
in_run = []


def note(phase, info):
    if phase == "start" and in_run and gc.get_freeze_count() == 0:
        passes.append(info["generation"])


gc.callbacks.append(note)


@server.tool()
def collector() -> dict:
    """The collections between run()'s call and the freeze, and whether the collector is on while serving."""
    return {"passes before the freeze": passes, "on": gc.isenabled()}


in_run.append(True)
server.run(host="127.0.0.1", port=0)
'''


def test_the_collector_does_not_run_between_runs_call_and_the_freeze(tmp_path: Path) -> None:
    """Issue 28: importing the transports (Tornado, asyncio), building the application and binding ran ~8.6 M
    instructions of collector passes over objects the freeze then moved out of its reach; the collector is off from
    ``run()``'s call to the freeze, and on again while serving."""
    with script_server(PAUSED, directory=tmp_path) as served:
        result = json.loads(call_tool_http(served.url, "collector")["content"][0]["text"])
    assert result == {"passes before the freeze": [], "on": True}


def test_a_serve_that_fails_at_start_leaves_the_collector_on() -> None:
    import socket

    from nanohubmcp.errors import ConfigurationError

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        assert gc.isenabled()
        with pytest.raises(ConfigurationError):  # the port is busy
            MCPServer("busy").run(host="127.0.0.1", port=taken.getsockname()[1], quiet=True)
        assert gc.isenabled()
    finally:
        taken.close()


def test_a_collector_the_process_turned_off_stays_off_after_a_failed_serve() -> None:
    import socket

    from nanohubmcp.errors import ConfigurationError

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    gc.disable()
    try:
        with pytest.raises(ConfigurationError):
            MCPServer("busy").run(host="127.0.0.1", port=taken.getsockname()[1], quiet=True)
        assert not gc.isenabled()
    finally:
        gc.enable()
        taken.close()
