"""``Secret | None`` and ``Optional[Secret]`` declare an optional secret: the module defining the
tool imports, the input schema says a password or null, a call with the value or with null works,
and the record keeps the marker (a null stays null).

Found by a security trial (trial14 F9): ``Secret | None`` raised ``TypeError: unhashable type:
'dict'`` while the module was imported (``Secret``'s ``Annotated`` metadata was a dict), with no
hint that ``Secret`` was the cause.
"""

from __future__ import annotations

import typing
from pathlib import Path

import pytest
from support import serve

from nanohubmcp import MCPServer, Secret

pytestmark = pytest.mark.anyio


async def test_an_optional_secret_is_served_and_never_stored(tmp_path: Path) -> None:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    server = MCPServer("optional-secret", state_dir=str(tmp_path))
    got: list[object] = []

    @server.tool()
    def fetch(dataset: str, key: Secret | None = None, other: typing.Optional[Secret] = None) -> str:  # noqa: UP045
        """Fetch a dataset, with an access key when it is private."""
        got.append((key, other))
        return dataset

    with serve(server) as url:
        async with streamable_http_client(url + "mcp") as streams, ClientSession(streams[0], streams[1]) as client:
            await client.initialize()
            (tool,) = (await client.list_tools()).tools
            for name in ("key", "other"):
                prop = tool.input_schema["properties"][name]
                assert prop["format"] == "password"
                assert prop["writeOnly"] is True
                assert "null" in prop["type"]
            with_key = await client.call_tool("fetch", {"dataset": "d", "key": "OPT-KEY-1", "other": "OPT-KEY-2"})
            without = await client.call_tool("fetch", {"dataset": "d"})
            assert not with_key.is_error
            assert not without.is_error
        records = [
            server.core.provenance.find(result.meta["io.nanohub/provenance"].rsplit("/", 1)[1])
            for result in (with_key, without)
        ]
    assert got == [("OPT-KEY-1", "OPT-KEY-2"), (None, None)]
    assert records[0] is not None
    assert records[1] is not None
    assert records[0]["arguments"] == {"dataset": "d", "key": "[secret: not stored]", "other": "[secret: not stored]"}
    assert records[1]["arguments"] == {"dataset": "d"}
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert b"OPT-KEY" not in path.read_bytes(), path
