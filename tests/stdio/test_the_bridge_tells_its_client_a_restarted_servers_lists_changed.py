"""When the server behind ``nanohubmcp bridge`` restarts with other tools (a notebook cell calling
``server.run()`` re-run with a changed function: a new server in the same kernel), the bridge, opening a
new session, tells its client ``notifications/tools/list_changed`` (and ``resources``, ``prompts``), so a
desktop app that keeps the lists it was sent lists them again (fresh-user trial 62, F11: the client kept
the old tool description; only an explicit re-list showed the new one).

A real bridge process under the official ``mcp`` stdio client, and two real servers, one after the
other on the same port.
"""

from __future__ import annotations

from typing import Any

import mcp.types as mcp_types
import pytest
from stdio_support import bridge_command, lab, official_client, until, until_streaming

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]

CHANGES = {mcp_types.ToolListChangedNotification: "tools", mcp_types.ResourceListChangedNotification: "resources",
           mcp_types.PromptListChangedNotification: "prompts"}


@pytest.mark.parametrize("then_call", [False, True], ids=["while the client waits", "on the client's next call"])
async def test_a_restarted_server_with_other_tools_is_announced(then_call: bool) -> None:
    heard: list[str] = []

    async def on_message(message: Any) -> None:
        if type(message) in CHANGES:
            heard.append(CHANGES[type(message)])

    server = lab("Density in g/cm3 (first version).")
    server.start(host="127.0.0.1", port=0)
    port = server.port
    try:
        async with official_client(bridge_command(f"{server.url}mcp"), message_handler=on_message) as session:
            assert (await session.list_tools()).tools[0].description == "Density in g/cm3 (first version)."
            await until_streaming(server)
            server.stop()
            server = lab("Density in g/cm3, from mass and volume (second version).")
            server.start(host="127.0.0.1", port=port)
            if then_call:
                assert (await session.call_tool("density", {"mass_g": 6.0, "volume_cm3": 2.0})).content[0].text \
                    == "3.0"
            await until(lambda: sorted(heard) == ["prompts", "resources", "tools"],
                           f"the client was not told the lists changed (heard {heard})")
            tools = (await session.list_tools()).tools
            assert tools[0].description == "Density in g/cm3, from mass and volume (second version)."
            assert len(list(server.core.sessions.all())) == 1
            assert sorted(heard) == ["prompts", "resources", "tools"]  # once: one new session
    finally:
        server.stop()
