"""What the tests of a tool's error text share: the text of each tool's error as the official ``mcp`` client reads
it over Streamable HTTP."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import anyio
from support import mcp_client


def error_texts(url: str, names: Iterable[str],
                arguments: Mapping[str, dict[str, Any]] | None = None) -> dict[str, str]:
    """Each tool of ``names`` called in turn on the server at ``url`` (its base URL: ``<url>mcp`` is called) by one
    session of the official client, with its entry of ``arguments`` (none when it has none): ``{name: the text of
    its result}``. A result that is no error (``isError``) fails the test, naming the tool."""
    given = arguments or {}

    async def texts() -> dict[str, str]:
        async with mcp_client(f"{url}mcp") as session:
            said = {}
            for name in names:
                result = await session.call_tool(name, given.get(name, {}))
                assert result.is_error, name
                said[name] = result.content[0].text  # type: ignore[union-attr]
            return said

    return anyio.run(texts)
