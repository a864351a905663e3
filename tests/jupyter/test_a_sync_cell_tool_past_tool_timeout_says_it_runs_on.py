"""trial66 F4: a notebook's sync ``%%mcp_tool`` past ``tool_timeout`` was answered "it was cancelled" while its
function ran on in its thread (``%mcp status`` counted it stuck): a tool that writes files or submits work
would seem stopped. The notebook registers such a tool as a coroutine that runs the function on the worker
pool; at the limit it now tells the core what became of the function, and the answer is the script server's:
"it was abandoned and may still be running (its worker now serves other calls)"."""

from __future__ import annotations

import pytest
from kernels import LiveKernel

pytestmark = pytest.mark.slow

TOOL = '''%%mcp_tool
import threading

release = threading.Event()
ran_to_the_end = threading.Event()

def slow(seconds: float) -> float:
    """Waits until released (at most seconds)."""
    release.wait(seconds)
    ran_to_the_end.set()
    return seconds
'''


def test_a_sync_tool_is_said_abandoned_and_still_running(kernel: LiveKernel) -> None:
    kernel.run_ok("%config NanohubMCP.tool_timeout = 0.5")
    kernel.run_ok(TOOL)
    answer = kernel.run_ok('r = %mcp call slow {"seconds": 120}\nprint(r.is_error, r.text)').stdout.strip()
    assert answer == ("True tool 'slow' did not finish within 0.5 s (tool_timeout); it was abandoned and may still "
                      "be running (its worker now serves other calls)")
    assert "Stuck calls: 1 (past tool_timeout and abandoned" in kernel.run_ok("%mcp status").text
    assert kernel.run_ok("print(ran_to_the_end.is_set())").stdout == "False\n"  # it does run on
    kernel.run_ok("release.set()\nassert ran_to_the_end.wait(30)")

