"""The store of large results is bounded per caller (``max_kept_bytes_per_owner``) and in all
(``max_kept_bytes``, also the largest one result kept): a caller's own oldest kept results are
evicted to keep a newer one, and reading an evicted link answers "Resource evicted: ..." with the
spec's resource-not-found code (-32002) naming the bound, not a bare "Resource not found". Another
session's results are not touched. A result larger than the whole store fails its call over MCP
with a message naming the store's size (``isError``, one WARNING line, no traceback, not
``ValueError: ...``).

A fresh-user trial (trial26 F10) read a link handed out seconds before as "Resource not found" after
two more large results in the same session: nothing said a link could be evicted, nor how much is kept.
"""

from __future__ import annotations

import logging
import re

import pytest
from mcp.shared.exceptions import MCPError
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.errors import ConfigurationError

np = pytest.importorskip("numpy")

PER_OWNER = 30_000


def build() -> MCPServer:
    server = MCPServer("kept", max_inline_bytes=1000, max_kept_bytes=60_000, max_kept_bytes_per_owner=PER_OWNER,
                       job_store="memory")

    @server.tool()
    def lin(n: int) -> object:
        """n values from 0 to 1."""
        return np.linspace(0, 1, n)

    return server


def link_of(result: object) -> str:
    return next(str(block.uri) for block in result.content if block.type == "resource_link")  # type: ignore[attr-defined]


@pytest.mark.anyio
async def test_an_evicted_link_says_so_and_names_the_bound(caplog: pytest.LogCaptureFixture) -> None:
    server = build()
    with serve(server) as url:
        async with mcp_client(url + "mcp") as mine, mcp_client(url + "mcp") as other:
            first = link_of(await mine.call_tool("lin", {"n": 1000}))  # about 19 KB of JSON each
            theirs = link_of(await other.call_tool("lin", {"n": 1001}))
            second = link_of(await mine.call_tool("lin", {"n": 1002}))  # over the per-owner bound: first goes

            with pytest.raises(MCPError) as refused:
                await mine.read_resource(first)
            assert refused.value.error.code == -32002
            message = refused.value.error.message
            assert message.startswith(f"Resource evicted: {first}"), message
            assert f"at most {PER_OWNER} bytes of large results per session" in message
            assert "read a result's link before asking for more large results" in message

            assert len((await mine.read_resource(second)).contents[0].text) > 1000
            assert len((await other.read_resource(theirs)).contents[0].text) > 1000  # another session's stays

            with pytest.raises(MCPError) as unknown:  # a link never handed out is not "evicted"
                await mine.read_resource(first[:-12] + "AAAAAAA.json")
            assert "evicted" not in unknown.value.error.message
            with pytest.raises(MCPError) as not_theirs:  # nor another session's evicted link
                await other.read_resource(first)
            assert "evicted" not in not_theirs.value.error.message

            with caplog.at_level(logging.DEBUG, "nanohubmcp"):
                over = await mine.call_tool("lin", {"n": 20_000})  # larger than the whole store
            assert over.is_error
            text = over.content[0].text
            assert "more than the server keeps for large results (60000)" in text, text
            assert not text.startswith("ValueError")
    refusals = [r for r in caplog.records if "keeps for large results" in r.getMessage()]
    assert len(refusals) == 1
    assert refusals[0].levelno == logging.WARNING
    assert refusals[0].exc_info is None  # no traceback: a limit, not a fault


@pytest.mark.parametrize("option", ["max_kept_bytes", "max_kept_bytes_per_owner"])
@pytest.mark.parametrize("value", [0, -1, 1.5, "1", True])
def test_the_bounds_must_be_positive_numbers_of_bytes(option: str, value: object) -> None:
    refusal = f"{option} must be a number of bytes >= 1, not {value!r}"
    with pytest.raises(ConfigurationError, match=f"^{re.escape(refusal)}"):
        MCPServer("x", **{option: value})  # type: ignore[arg-type]
