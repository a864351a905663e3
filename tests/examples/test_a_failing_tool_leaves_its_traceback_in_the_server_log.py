"""A tool that raises in a script server leaves its traceback on the server's stderr (the logging module's
"nanohubmcp.tool" logger at ERROR): once per failure, with the tool's name and the request id, for MCP calls
and REST alike; the client still gets only the message, and the arguments' values are not logged."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request

import anyio
import pytest
from example_process import run_example
from support import mcp_client


def wait_for(process: object, text: str, count: int = 1) -> str:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        output = process.output  # type: ignore[attr-defined]
        if output.count(text) >= count:
            return output
        time.sleep(0.05)
    raise AssertionError(f"{text!r} not logged {count} time(s):\n{process.output}")  # type: ignore[attr-defined]


@pytest.mark.anyio
async def test_mcp_and_rest_failures_are_logged_with_their_traceback() -> None:
    with run_example("simple") as example:
        async with mcp_client(example.url + "mcp") as client:
            with anyio.fail_after(30):
                result = await client.call_tool("divide", {"a": 987654321, "b": 0})
        assert result.is_error
        assert result.content[0].text == "Cannot divide by zero"  # the client sees no traceback
        output = wait_for(example, "Traceback")
        assert "tool 'divide' failed (request id " in output
        assert "ValueError: Cannot divide by zero" in output
        assert 'raise ValueError("Cannot divide by zero")' in output  # the line that raised
        assert "987654321" not in output  # arguments are not logged

        request = urllib.request.Request(
            example.url + "tools/divide", json.dumps({"a": 1, "b": 0}).encode(), {"Content-Type": "application/json"}
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=30)
        assert refused.value.code == 500
        output = wait_for(example, "Traceback", 2)
        assert output.count("tool 'divide' failed") == 2  # once per failure
