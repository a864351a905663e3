"""A tool that raises: the client gets the message only, ``%mcp log`` shows the notebook user the traceback."""

from __future__ import annotations

import pytest
from kernels import LiveKernel, run_async, server_url
from support import mcp_client

pytestmark = pytest.mark.slow

SYNC_TOOL = '''%%mcp_tool
def _check(n: int) -> None:
    raise ValueError(f"bad input {n}")

def check(n: int) -> int:
    """Check n."""
    _check(n)
    return n
'''
ASYNC_TOOL = '''%%mcp_tool
async def _fetch(key: str) -> str:
    raise KeyError(key)

async def fetch(key: str) -> str:
    """Fetch a key."""
    return await _fetch(key)
'''


def call(url: str, tool: str, arguments: dict[str, object]) -> tuple[bool, str]:
    async def go() -> tuple[bool, str]:
        async with mcp_client(url) as client:
            result = await client.call_tool(tool, arguments)
            return bool(result.is_error), str(result.content[0].text)

    return run_async(go())


def test_the_last_failure_traceback_is_in_the_log_and_not_sent_to_the_client(kernel: LiveKernel) -> None:
    assert "Last failure" not in kernel.run_ok("%mcp log").stdout
    kernel.run_ok(SYNC_TOOL)
    kernel.run_ok(ASYNC_TOOL)
    url = server_url(kernel)

    is_error, text = call(url, "check", {"n": 42})
    assert is_error
    assert "Traceback" not in text
    log = kernel.run_ok("%mcp log").stdout
    assert "Last failure (clients got only its message), tool 'check' at " in log
    assert "Traceback (most recent call last):" in log
    assert "in _check" in log
    assert log.rstrip().endswith("ValueError: bad input 42")

    is_error, text = call(url, "fetch", {"key": "missing"})
    assert is_error
    assert "Traceback" not in text
    log = kernel.run_ok("%mcp log").stdout
    assert "tool 'fetch' at " in log
    assert "in _fetch" in log
    assert log.rstrip().endswith("KeyError: 'missing'")
