"""The app of the tests of the lines a stopping ``nanohubmcp run`` process says about what it waits for: a sync tool
call and two ``@async_tool`` jobs on threads of the server, each saying on stderr that it runs."""

from __future__ import annotations

from pathlib import Path

APP = """
import sys, time
from nanohubmcp import MCPServer
server = MCPServer("jobs-lines", job_store="memory")

@server.tool()
def slow(seconds: float) -> str:
    '''A sync call.'''
    print("slow: running", file=sys.stderr, flush=True)
    time.sleep(seconds)
    return "done"

@server.async_tool()
def long_job(seconds: float) -> str:
    '''A job on a thread of the server.'''
    print("job: running", file=sys.stderr, flush=True)
    time.sleep(seconds)
    print("job: returning", file=sys.stderr, flush=True)
    return "job done"

@server.async_tool()
def stubborn(seconds: float, tag: str) -> str:
    '''A job on a thread of the server that does not look whether it was cancelled.'''
    print(f"job {tag}: running", file=sys.stderr, flush=True)
    time.sleep(seconds)
    return "ok"
"""
"""Tools: ``slow(seconds)`` (says ``slow: running``), ``long_job(seconds)`` (``job: running``, then ``job:
returning`` as it ends) and ``stubborn(seconds, tag)`` (``job TAG: running``)."""


def stop_lines_app(folder: Path) -> Path:
    """:data:`APP` written to ``folder/app.py``; its path."""
    app = folder / "app.py"
    app.write_text(APP)
    return app
