"""An ``output_schema`` whose type is not ``object`` (``{"type": "array"}``, which 2026-07-28 allows)
is listed in ``tools/list`` to 2026-07-28 clients only: up to 2025-11-25 an outputSchema must be an
object schema, and the official client refused the whole list for one such tool (every tool of the
server was lost to it). Registering one warns, naming what to do.

Found while making list results structured content (trial25 F1).
"""

from __future__ import annotations

import warnings

import anyio
from support import mcp_client, serve

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationWarning
from nanohubmcp.testing import in_memory

ARRAY = {"type": "array", "items": {"type": "number"}}


def build() -> MCPServer:
    server = MCPServer("schemas")

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")

        @server.tool(output_schema=ARRAY)
        def series() -> list:
            """A list under an array schema."""
            return [1.0, 2.0]

    assert [str(w.message) for w in caught if issubclass(w.category, RegistrationWarning)] == [
        "tool 'series' has an output_schema whose type is not 'object': clients of protocol versions before "
        "2026-07-28 take only an object schema, so it is listed to 2026-07-28 clients only; describe the result "
        'as an object (a list\'s as {"result": [...]}) to list it to every client']

    @server.tool()
    def echo(s: str) -> str:
        """Echo the text."""
        return s

    return server


def test_the_official_client_lists_and_calls_every_tool() -> None:
    with serve(build()) as url:
        async def session() -> tuple[set[str], list[float]]:
            async with mcp_client(f"{url}mcp") as client:
                tools = (await client.list_tools()).tools
                assert all(t.output_schema is None for t in tools)
                result = await client.call_tool("series", {})
                assert not result.is_error, result
                return {t.name for t in tools}, [float(v) for v in result.content[0].text.strip("[]").split(",")]

        names, values = anyio.run(session)
    assert names == {"series", "echo"}
    assert values == [1.0, 2.0]


def test_a_2026_client_is_told_the_schema_and_gets_the_list() -> None:
    with in_memory(build(), version="2026-07-28") as client:
        listed = {t["name"]: t for t in client.list_tools()}
        assert listed["series"]["outputSchema"] == ARRAY
        assert client.call_tool("series")["structuredContent"] == [1.0, 2.0]
