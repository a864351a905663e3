"""``nanohubmcp hub-tools`` keeps one default state directory whatever tools it serves: a server of one tool
(named after it) and then of two (named ``hub-tools``) write their provenance records to the same place, so
adding a tool to the command leaves no stored runs, cache entries or records behind. Served over stdio to
the official client, records listed with ``nanohubmcp provenance list``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

ROOT = Path(__file__).resolve().parents[2]
FERMI = ROOT / "tests" / "rappture" / "tools" / "fermi"


def _apps(base: Path) -> Path:
    apps = base / "apps"
    for revision in ("r7", "r12"):
        folder = apps / "fermi" / revision / "rappture"
        folder.mkdir(parents=True)
        for name in ("tool.xml", "fermi.py"):
            shutil.copy(FERMI / name, folder / name)
    return apps


async def _call_fermi(command: list[str], env: dict[str, str]) -> list[str]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT), env=env)
    with anyio.fail_after(120):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            names = sorted(t.name for t in (await session.list_tools()).tools)
            result = await session.call_tool(names[0], {"temperature": "77K", "points": 11})
            assert not result.is_error, result.content
            return names


@pytest.mark.timeout(300)
@pytest.mark.anyio
async def test_adding_a_tool_keeps_the_default_state_directory(tmp_path: Path) -> None:
    apps = _apps(tmp_path)
    env = {k: v for k, v in os.environ.items()
           if k not in ("SESSIONDIR", "SESSION_DIR", "NANOHUBMCP_STATE_DIR", "NANOHUBMCP_STATE_URL")}
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    base = [sys.executable, "-m", "nanohubmcp", "hub-tools", "--root", str(apps)]
    assert await _call_fermi([*base, "fermi/r7", "--transport", "stdio"], env) == ["fermi"]
    assert len(await _call_fermi([*base, "fermi/r7", "fermi/r12", "--transport", "stdio"], env)) == 2
    listed = subprocess.run([sys.executable, "-m", "nanohubmcp", "provenance", "list", "--name", "hub-tools"],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0, listed.stderr
    records = [line for line in listed.stdout.splitlines() if " completed " in line]
    assert len(records) == 2, listed.stdout  # the one-tool server's call and the two-tool server's
    assert sorted(os.listdir(tmp_path / "data" / "nanohubmcp")) == ["hub-tools"]
