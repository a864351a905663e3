"""``nanohubmcp hub-tools NAME --cache`` turns on the result cache for the Rappture tools it serves: a second
identical call (``"300K"`` then ``300``, one value in the tool's units) is answered from the cache, not run again
(trial72 T72-7: hub-tools had no such option, so each call ran the program, while ``add_rappture_tool(cache=True)``
cached). ``--cache`` with ``--async`` is a usage error (a job's result is not the cache's). Served over stdio to the
official client, through the stand-in ``rappture`` a hub has on its PATH. ``nanohubmcp rappture PATH`` takes the
same two options (trial75 F8: rappture.md pointed to a ``--cache-shared`` only hub-tools had: a usage error)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

ROOT = Path(__file__).resolve().parents[2]
FERMI = ROOT / "tests" / "rappture" / "tools" / "fermi"
CACHE = "io.nanohub/cache"


def _apps(base: Path) -> Path:
    folder = base / "apps" / "fermi" / "r1" / "rappture"
    folder.mkdir(parents=True)
    for name in ("tool.xml", "fermi.py"):
        shutil.copy(FERMI / name, folder / name)
    return base / "apps"


def _environment(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("SESSIONDIR", "SESSION_DIR", "NANOHUBMCP_STATE_DIR", "NANOHUBMCP_STATE_URL")}
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    return env


async def _caches(command: list[str], env: dict[str, str]) -> list[Any]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT), env=env)
    found = []
    with anyio.fail_after(120):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            for temperature in ("300K", 300):
                result = await session.call_tool("fermi", {"temperature": temperature})
                assert not result.is_error, result.content
                found.append((result.meta or {}).get(CACHE))
    return found


@pytest.mark.timeout(300)
@pytest.mark.anyio
async def test_a_second_identical_rappture_call_is_a_cache_hit_with_cache(tmp_path: Path, hub_path: Path) -> None:
    env = _environment(tmp_path)
    base = [sys.executable, "-m", "nanohubmcp", "hub-tools", "fermi", "--root", str(_apps(tmp_path)),
            "--transport", "stdio"]
    assert await _caches([*base, "--cache"], env) == [{"hit": False}, {"hit": True}]  # was: no --cache option
    assert await _caches(base, env) == [None, None]  # without it: run each time, as before


def test_cache_with_async_is_a_usage_error(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "nanohubmcp", "hub-tools", "fermi", "--root",
                           str(_apps(tmp_path)), "--cache-shared", "--async", "--transport", "stdio"],
                          cwd=ROOT, env=_environment(tmp_path), capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "--cache-shared is for calls answered at once, and --async makes each call a job" in done.stderr


@pytest.mark.timeout(300)
@pytest.mark.anyio
async def test_the_rappture_command_takes_the_same_cache_options(tmp_path: Path, hub_path: Path) -> None:
    env = _environment(tmp_path)
    base = [sys.executable, "-m", "nanohubmcp", "rappture", str(_apps(tmp_path) / "fermi" / "r1" / "rappture"),
            "--transport", "stdio"]
    assert await _caches([*base, "--cache-shared"], env) == [{"hit": False}, {"hit": True}]  # was: a usage error
    done = subprocess.run([*base, "--cache", "--async"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2, done.stderr
    assert "--cache is for calls answered at once, and --async makes each call a job" in done.stderr
