"""A notebook kernel shut down during a call (JupyterLab's "Shut Down Kernel": a ``shutdown_request``) answers
the call that the server is stopping (REST: 503) and writes its provenance record, ``failed`` with "the
server stopped while this call ran", before the kernel's process ends, as ``%mcp stop`` does: the ``%%mcp_tool``
server's, a plain ``server.run()`` server's, and both when the kernel serves both. Real kernel (jupyter_client:
the shutdown_request alone, and a kernel manager's shutdown, which sends SIGTERM 2.5 s after it), real REST
calls over HTTP, the records read back with ``nanohubmcp provenance list``.

Found by a fresh-user trial (trial53 F5): the call was answered 503, but its record was never written (the
writer's own exit write ran before the extension stopped the server); under a kernel manager the stop (about
2 s of drain, then the connections' closing) outlasted the 2.5 s before its SIGTERM: no answer, no record.
Then (trial54 N1): a plain ``server.run()`` server in a cell had no exit hook at all: its serving thread died
with the process, the client got "Server disconnected without sending a response" and no record was written.
Then (r30): under load the kernel-manager cases failed the same way (5 of 8 with 4 copies at once): the stop
began only at the interpreter's exit, after it joined the threads that are no daemon (the package-metadata reader:
a second and more), too late before the SIGTERM; it now begins as the kernel handles the shutdown request.
Then (review r31 F3): a "kernel" mode server whose loop was busy (a cell computing) held the stops in turn 2.7 s,
and a ``server.run()`` server after it began its stop past the SIGTERM: the servers now stop together.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from kernels import LiveKernel, server_url
from provenance_rows import provenance_rows
from support import wait_until

pytestmark = pytest.mark.slow


def _nap(marker: Path) -> str:
    return f'''%%mcp_tool
def nap(seconds: float) -> str:
    """Sleeps."""
    import pathlib, time
    pathlib.Path({str(marker)!r}).write_text("running")
    time.sleep(seconds)
    return "rested"
'''


def _async_nap(marker: Path) -> str:
    """An ``async def`` tool: it runs on the kernel's loop itself (suspended once that loop stopped)."""
    return f'''%%mcp_tool
async def nap(seconds: float) -> str:
    """Sleeps."""
    import asyncio, pathlib
    pathlib.Path({str(marker)!r}).write_text("running")
    await asyncio.sleep(seconds)
    return "rested"
'''


TOKEN = "tok-n1"


def _plain(marker: Path) -> str:
    """A plain script in a cell (notebook.md, "A plain script in a cell"), its ``nap`` as the cell's."""
    return f'''import pathlib, time
from nanohubmcp import MCPServer

server = MCPServer("nbplain")

@server.tool()
def nap(seconds: float) -> str:
    """Sleeps."""
    pathlib.Path({str(marker)!r}).write_text("running")
    time.sleep(seconds)
    return "rested"

server.run(port=0, token={TOKEN!r}, quiet=True)
'''


def _post(url: str, answers: list[Any], token: str | None = None) -> None:
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
    request = urllib.request.Request(url, data=json.dumps({"seconds": 30}).encode(), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            answers.append((response.status, response.read().decode()))
    except urllib.error.HTTPError as exc:
        answers.append((exc.code, exc.read().decode()))
    except OSError as exc:
        answers.append((None, repr(exc)))


def _serve(live: LiveKernel, kind: str, tmp_path: Path) -> list[tuple[str, str | None, Path]]:
    """Start the server(s) of ``kind`` in ``live``: their ``/tools/nap`` URLs, tokens and "running" markers."""
    served = []
    if kind in ("%%mcp_tool", "both", "kernel mode", "kernel mode async"):
        marker = tmp_path / "cells-nap-running"
        live.run_ok("%load_ext nanohubmcp\n%config NanohubMCP.port = 0")
        if kind.startswith("kernel mode"):  # the server on the kernel's own loop (NanohubMCP.mode)
            live.run_ok("%config NanohubMCP.mode = 'kernel'")
        live.run_ok(_async_nap(marker) if kind == "kernel mode async" else _nap(marker))
        served.append((server_url(live).removesuffix("mcp") + "tools/nap", None, marker))
    if kind in ("server.run()", "both"):
        marker = tmp_path / "plain-nap-running"
        live.run_ok(_plain(marker))
        base = live.run_ok("print(server.url)").stdout.strip()
        served.append((f"{base}tools/nap", TOKEN, marker))
    return served


@pytest.mark.timeout(180)
@pytest.mark.parametrize(("kind", "how"), [("%%mcp_tool", "shutdown_request"), ("%%mcp_tool", "kernel manager"),
                                           ("server.run()", "shutdown_request"), ("server.run()", "kernel manager"),
                                           ("both", "kernel manager"), ("kernel mode", "shutdown_request"),
                                           ("kernel mode", "kernel manager"), ("kernel mode async", "kernel manager")])
def test_a_call_the_kernels_shutdown_cuts_short_is_recorded(start_kernel: Any, tmp_path: Path, kind: str,
                                                            how: str) -> None:
    _shut_down_during_the_calls(start_kernel, tmp_path, kind, how)


HELD_EXIT = "import threading, time\nthreading.Thread(target=time.sleep, args=(60,), name='held-exit').start()"
"""A cell starting a thread that is no daemon (a user's, a library's worker): the interpreter's exit waits for it
before its ``atexit`` hooks, past the kernel manager's SIGTERM."""


@pytest.mark.timeout(180)
@pytest.mark.parametrize("kind", ["both", "kernel mode", "kernel mode async"])
def test_the_servers_stop_at_the_shutdown_request_not_at_the_exit(start_kernel: Any, tmp_path: Path,
                                                                  kind: str) -> None:
    """The stop begins as the kernel handles the shutdown request, not at the interpreter's exit: a thread the
    notebook started holds the exit (60 s) past the kernel manager's SIGTERM (2.5 s), and the calls are still
    answered 503 and recorded. Before (the ``atexit`` hook alone), the stop never began: no answer, no record; under
    load the exit's own wait (the package-metadata reader, a second and more) had the same outcome."""
    _shut_down_during_the_calls(start_kernel, tmp_path, kind, "kernel manager", before=HELD_EXIT)


def _shut_down_during_the_calls(start_kernel: Any, tmp_path: Path, kind: str, how: str,
                                before: str | None = None) -> None:
    """Serve ``kind`` in a kernel, call ``nap`` on each server, shut the kernel down ``how`` while they run (after
    the cell ``before``): each call answered 503, each recorded ``failed``."""
    state = tmp_path / "state"
    live: LiveKernel = start_kernel(NANOHUBMCP_STATE_DIR=str(state), MCP_TOKEN="")
    served = _serve(live, kind, tmp_path)
    if before is not None:
        live.run_ok(before)
    answers: list[Any] = []
    for url, token, _ in served:
        threading.Thread(target=_post, args=(url, answers, token), daemon=True).start()
    for _, _, marker in served:
        wait_until(marker.exists, "the call running", 60)
    if how == "shutdown_request":  # the message alone, on the control channel (what the trial sent)
        live.client.shutdown()
        wait_until(lambda: not live.manager.is_alive(), "the kernel's process ended", 60)
    else:  # a Jupyter server's way (JupyterLab's "Shut Down Kernel"): the request, SIGTERM 2.5 s later
        live.shutdown()
    wait_until(lambda: len(answers) == len(served), "every call answered", 60)
    for status, body in answers:
        assert status == 503, answers
        assert "The server is stopping" in body, answers
    rows = provenance_rows(state)
    lines = [line for line in rows if " nap " in line]
    assert len(lines) == len(served), rows
    for line in lines:
        assert "failed" in line, rows
        assert "the server stopped while this call ran" in line, rows


BUSY = "import pathlib, time\npathlib.Path({marker!r}).write_text('busy')\ntime.sleep(30)"
"""A cell computing (the usual reason to shut a kernel down): the kernel's own loop, a "kernel" mode server's, is
held; the shutdown request is handled on the control thread meanwhile."""


@pytest.mark.timeout(180)
def test_a_busy_kernel_loop_does_not_hold_up_the_other_servers_stop(start_kernel: Any, tmp_path: Path) -> None:
    """A ``mode = "kernel"`` server whose loop is held by a running cell cannot drain at the shutdown request; a
    ``server.run()`` server beside it (its own loop free) still answers its running call 503 and records it before
    the kernel manager's SIGTERM. Before, the stops ran in turn: the kernel mode one waited 2.7 s for its loop, the
    ``server.run()`` one began past the SIGTERM with 1 ms: no answer, no record."""
    state = tmp_path / "state"
    live: LiveKernel = start_kernel(NANOHUBMCP_STATE_DIR=str(state), MCP_TOKEN="")
    _serve(live, "kernel mode", tmp_path)  # registered first: its stop came first
    [(url, token, marker)] = _serve(live, "server.run()", tmp_path)
    answers: list[Any] = []
    threading.Thread(target=_post, args=(url, answers, token), daemon=True).start()
    wait_until(marker.exists, "the call running", 60)
    busy = tmp_path / "cell-busy"
    live.submit(BUSY.format(marker=str(busy)))
    wait_until(busy.exists, "the cell running", 60)
    live.shutdown()  # the request, SIGTERM 2.5 s later
    wait_until(lambda: len(answers) == 1, "the call answered", 60)
    [(status, body)] = answers
    assert status == 503, answers
    assert "The server is stopping" in body, answers
    lines = [line for line in provenance_rows(state) if " nap " in line]
    assert len(lines) == 1, lines
    assert "failed" in lines[0], lines
    assert "the server stopped while this call ran" in lines[0], lines
