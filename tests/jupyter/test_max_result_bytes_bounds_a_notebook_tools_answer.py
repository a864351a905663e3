"""``%config NanohubMCP.max_result_bytes`` bounds what one call of a notebook's tool may answer, in a real
kernel: a result over it fails the call with the documented error (REST 500 ``{"error": ...}``, an MCP
``isError`` result, both naming the limit), a smaller one is answered, and a new value applies to the next
call. A refused value is one line in the cell and changes nothing. Before, the kernel's server always had
MCPServer's 256 MiB and ``%config`` warned the setting was not recognized."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from kernels import kernel_sharing_state, run_async, server_url
from support import mcp_client

pytestmark = pytest.mark.slow

BIG = '%%mcp_tool\ndef big(n: int) -> str:\n    "n characters."\n    return "x" * n\n'
OVER = "more than this server sends in one answer (max_result_bytes=1000)"


def rest(base: str, n: int) -> tuple[int, Any]:
    request = urllib.request.Request(f"{base}tools/big", data=json.dumps({"n": n}).encode(),
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_a_result_over_the_configured_limit_fails_its_call_naming_it(start_kernel: Any, tmp_path: Path) -> None:
    kernel = kernel_sharing_state(start_kernel, str(tmp_path / "state"))
    setting = kernel.run_ok("%config NanohubMCP.max_result_bytes = 1000\n%config NanohubMCP.max_inline_bytes = None")
    assert "not recognized" not in setting.text
    kernel.run_ok(BIG)
    url = server_url(kernel)
    base = url.removesuffix("mcp")

    status, body = rest(base, 5000)
    assert status == 500
    assert OVER in body["error"]
    assert rest(base, 10) == (200, {"result": "x" * 10})

    async def call() -> Any:
        async with mcp_client(url) as client:
            return await client.call_tool("big", {"n": 5000})

    result = run_async(call())
    assert result.is_error is True
    assert OVER in result.content[0].text

    kernel.run_ok("%config NanohubMCP.max_result_bytes = None")  # the next call, without a restart
    status, body = rest(base, 5000)
    assert status == 200
    assert body == {"result": "x" * 5000}
    assert server_url(kernel) == url


def test_a_refused_limit_is_one_line_naming_the_setting(start_kernel: Any, tmp_path: Path) -> None:
    kernel = kernel_sharing_state(start_kernel, str(tmp_path / "state"))
    cell = kernel.run_ok("%config NanohubMCP.max_result_bytes = -5")
    assert cell.stderr.startswith("UsageError: NanohubMCP.max_result_bytes must be a number of bytes >= 1, "
                                  "or None for no limit, not -5 (default 268435456); the setting is unchanged")
    listing = kernel.run_ok("%config NanohubMCP").text
    assert "Current: 268435456" in listing.split("NanohubMCP.max_result_bytes=<Limit>")[1].split("\n--")[0]
