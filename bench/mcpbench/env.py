"""The benchmark's environment: the peers' venv, wrk, and the versions and machine to report.

The peers are installed into ``bench/.venv-peers`` (never into the project's ``.venv``: the earlier
``nanohub-mcp`` 0.4.7 imports as ``nanohubmcp`` too). wrk comes from apt when running as root.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent.parent
REPO = BENCH.parent
PEERS_VENV = BENCH / ".venv-peers"
PEER_PINS = ("nanohub-mcp==0.4.7", "mcp==2.3.0", "uvicorn", "fastmcp==4.2.3", "py-spy")
PEER_CHECK = "import nanohubmcp, mcp.server.mcpserver, fastmcp, uvicorn"


def our_python() -> str:
    """The project's interpreter: ``.venv/bin/python`` at the repo root, else $NANOHUBMCP_PYTHON."""
    chosen = os.environ.get("NANOHUBMCP_PYTHON") or str(REPO / ".venv" / "bin" / "python")
    if not Path(chosen).exists():
        raise SystemExit(
            f"no interpreter at {chosen}: create the project venv "
            "(python -m venv .venv && .venv/bin/pip install -e .) or set NANOHUBMCP_PYTHON"
        )
    return chosen


def compile_bytecode(python: str) -> None:
    """Write the ``.pyc`` files of our package and of every package of ``python``'s environment, as
    installing wheels does.

    An editable install has none until a first run writes them; ``scripts/setup`` installs with
    ``--no-compile``; and none are ever written when ``PYTHONDONTWRITEBYTECODE`` is set (as on some hosts):
    cold starts would then time the compiler (a start of ours read 976 M instructions instead of ~500 M,
    the ceiling's 892 M instead of ~412 M, 2026-12-07). The peers were installed by pip, which compiled theirs.
    Files already compiled are skipped, so a second call costs ~1 s.
    """
    code = (
        "import compileall, os, sysconfig, nanohubmcp\n"
        "compileall.compile_dir(os.path.dirname(nanohubmcp.__file__), quiet=1)\n"
        "compileall.compile_dir(sysconfig.get_paths()['purelib'], quiet=1, workers=0)"
    )
    # In BENCH, where the servers start: from another directory ``-c`` would import (and compile) the
    # checkout there (a worktree), while the servers import the installed one, left with stale .pyc.
    subprocess.run([python, "-c", code], check=True, capture_output=True, timeout=900, cwd=BENCH)


def peers_python(log: Any = print) -> str:
    """The peers' interpreter, creating ``.venv-peers`` and installing the pinned peers if needed."""
    python = PEERS_VENV / "bin" / "python"
    if (
        python.exists()
        and subprocess.run([str(python), "-c", PEER_CHECK], capture_output=True, timeout=120).returncode == 0
    ):
        return str(python)
    log(f"setting up {PEERS_VENV.relative_to(REPO)}: {' '.join(PEER_PINS)}")
    subprocess.run([sys.executable, "-m", "venv", str(PEERS_VENV)], check=True, timeout=300)
    subprocess.run([str(python), "-m", "pip", "install", "-q", *PEER_PINS], check=True, timeout=1200)
    return str(python)


def ensure_wrk(log: Any = print) -> str:
    """Path of wrk, installing the Debian package when root and apt-get exist."""
    found = shutil.which("wrk")
    if found:
        return found
    if os.geteuid() == 0 and shutil.which("apt-get"):
        log("installing wrk with apt-get")
        subprocess.run(["apt-get", "update", "-qq"], check=False, timeout=600, capture_output=True)
        subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], check=False, timeout=600, capture_output=True)
        found = shutil.which("wrk")
    if not found:
        raise SystemExit("wrk is required: install it (Debian/Ubuntu: apt-get install wrk) and rerun")
    return found


def _versions(python: str, names: tuple[str, ...]) -> dict[str, str | None]:
    code = (
        f"import json, importlib.metadata as m\nout = {{}}\nfor n in {names!r}:\n"
        "    try: out[n] = m.version(n)\n    except m.PackageNotFoundError: out[n] = None\n"
        "print(json.dumps(out))"
    )
    done = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=60)
    return json.loads(done.stdout) if done.returncode == 0 else {}


def describe(ours: str, peers: str) -> dict[str, Any]:
    """Versions of everything measured, and the machine."""
    info: dict[str, Any] = {
        "python": platform.python_version(),
        "kernel": platform.release(),
        "cpus": os.cpu_count(),
        "ours": _versions(ours, ("nanohub-mcp", "tornado")),
        "peers": _versions(
            peers,
            (
                "nanohub-mcp",
                "mcp",
                "fastmcp",
                "uvicorn",
                "starlette",
                "h11",
                "uvloop",
                "httptools",
                "pydantic",
                "tornado",
            ),
        ),
    }
    try:
        git = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
        )
        info["commit"] = git.stdout.strip() or None
        dirty = subprocess.run(
            ["git", "-C", str(REPO), "status", "--porcelain", "--", "nanohubmcp"],
            capture_output=True,
            text=True,
            timeout=10,
        )
        info["nanohubmcp_dirty"] = bool(dirty.stdout.strip())
    except (OSError, subprocess.TimeoutExpired):
        pass
    wrk = shutil.which("wrk")
    if wrk:
        text = subprocess.run([wrk, "--version"], capture_output=True, text=True, timeout=10)
        info["wrk"] = (text.stdout or text.stderr).splitlines()[0].strip()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu_model"] = line.split(":", 1)[1].strip()
                break
        info["mem_gib"] = round(int(Path("/proc/meminfo").read_text().split()[1]) / 2**20, 1)
        info["loadavg"] = Path("/proc/loadavg").read_text().split()[:3]
    except OSError:
        pass
    return info


def pre_tree(python: str, log: Any = print) -> str:
    """A detached worktree of main before the redesign (``matrix.PRE_COMMIT``) at ``matrix.PRE_TREE``,
    its bytecode compiled; made once, kept for later runs. Our interpreter imports it first when
    ``servers/ours.py --tree`` puts it on ``sys.path``."""
    from .matrix import PRE_COMMIT, PRE_TREE

    tree = Path(PRE_TREE)
    if not (tree / "nanohubmcp" / "__init__.py").exists():
        log(f"checking out {PRE_COMMIT} into {tree} (a temporary worktree)")
        subprocess.run(
            ["git", "-C", str(REPO), "worktree", "add", "--detach", str(tree), PRE_COMMIT],
            check=True,
            capture_output=True,
            timeout=120,
        )
    code = f"import compileall; compileall.compile_dir({str(tree / 'nanohubmcp')!r}, quiet=1)"
    subprocess.run([python, "-c", code], check=True, capture_output=True, timeout=300)
    return str(tree)
