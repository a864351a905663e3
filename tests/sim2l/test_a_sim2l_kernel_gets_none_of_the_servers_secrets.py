"""A Sim2L notebook's kernel runs without the server's secrets in its environment (review r41 R41-8).

Before, jupyter_client started the kernel with the server's whole environment: a notebook that
evaluates what a client typed, or prints its environment, gave the client the server's bearer token
(``MCP_TOKEN``), its Redis URL with the password and the weber path with the session's cookie. Now
those variables (``SERVER_SECRETS``) are dropped; ``PATH``, ``HOME``, ``SESSIONDIR`` stay.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from secret_environment import SECRETS
from sim2l.cooling_variant import cooling_variant
from support import mcp_client, serve

from nanohubmcp import MCPServer

pytest.importorskip("papermill")
pytest.importorskip("simtool")

CHECK = (
    "import os\n"
    f"_seen = sorted({sorted(SECRETS)!r} & os.environ.keys())\n"
    "assert not _seen, f'the kernel sees {_seen}'\n"
    "assert {'PATH', 'HOME', 'SESSIONDIR'} <= os.environ.keys(), sorted(os.environ)\n"
)


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.anyio
async def test_the_kernel_sees_no_secret_but_its_path_home_and_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = MCPServer("sim2l-env", state_dir=str(tmp_path / "state"))
    server.add_sim2l(str(cooling_variant(tmp_path, CHECK)), name="cool")
    with serve(server) as url, anyio.fail_after(240):
        for name, value in SECRETS.items():  # (once serving: the server itself reads none of them here)
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("SESSIONDIR", str(tmp_path))
        async with mcp_client(url + "mcp") as client:
            result = await client.call_tool("cool", {})
    assert not result.is_error, result.content
