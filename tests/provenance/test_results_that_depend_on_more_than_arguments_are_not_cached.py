"""What the result cache must not keep (trial findings): a call that asked its client something
(its result depends on the answer: a later call replayed the first answer's result without asking),
and a result too large to inline (its link belongs to the caller and expires with
``job_ttl_seconds``: a hit handed back a dead link, and another principal's hit a link they could not
read; its miss says ``"stored": false`` with the reason). A ``cache="shared"`` tool that takes a Context is
warned about (it can see who calls)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from nanohubmcp import Context, MCPServer
from nanohubmcp.errors import RegistrationWarning
from nanohubmcp.server.provenance.cache_layer import LINKED
from nanohubmcp.testing import MemoryClient

pytestmark = pytest.mark.anyio
CACHE = "io.nanohub/cache"


async def test_a_call_that_asked_the_client_is_not_kept(tmp_path: Path) -> None:
    server = MCPServer("asking", state_dir=str(tmp_path))
    runs: list[str] = []

    @server.tool(cache=True)
    async def simulate(x: int, ctx: Context) -> str:
        """Asks which material, then simulates."""
        answer = await ctx.elicit("Which material?", {"type": "object", "properties": {"m": {"type": "string"}}})
        runs.append(answer["content"]["m"])
        return f"x={x} material={answer['content']['m']}"

    answers = iter(["silicon", "germanium"])

    def elicitation(params: dict[str, Any]) -> dict[str, Any]:
        return {"action": "accept", "content": {"m": next(answers)}}

    async with MemoryClient(server, elicitation=elicitation) as client:
        first = await client.call_tool("simulate", {"x": 1})
        second = await client.call_tool("simulate", {"x": 1})
    assert [first["content"][0]["text"], second["content"][0]["text"]] == [
        "x=1 material=silicon", "x=1 material=germanium"]
    assert runs == ["silicon", "germanium"]
    assert CACHE not in second.get("_meta", {})


async def test_a_result_too_large_to_inline_is_not_kept(tmp_path: Path) -> None:
    server = MCPServer("large", state_dir=str(tmp_path), max_inline_bytes=1024)
    runs: list[int] = []

    @server.tool(cache="shared")
    def big(x: int) -> str:
        """A long text: a preview and a link."""
        runs.append(x)
        return "y" * 400_000

    for _ in range(2):
        async with MemoryClient(server) as client:
            result = await client.call_tool("big", {"x": 1})
            link = next(b for b in result["content"] if b["type"] == "resource_link")
            read = await client.request("resources/read", {"uri": link["uri"]})
            assert len(read["contents"][0]["text"]) == 400_000  # every caller can read its own link
            # trial66 F9: the miss says it was not kept, and why (its _meta had no cache key at all)
            assert result["_meta"][CACHE] == {"hit": False, "stored": False, "reason": LINKED}, result["_meta"]
    assert runs == [1, 1]


def test_a_shared_cache_on_a_tool_that_takes_a_context_is_warned_about() -> None:
    server = MCPServer("warned")
    with pytest.warns(RegistrationWarning, match="cache='shared' and takes a Context"):
        @server.tool(cache="shared")
        def whoami(x: int, ctx: Context) -> str:
            """Says who asks."""
            return str(ctx.principal)
