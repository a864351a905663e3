"""The two small files through which a kernel and the Jupyter server extension find each other.

Both live in the Jupyter **runtime directory** of the server: the directory of the kernels'
connection files (``kernel-<id>.json``; Jupyter Server's ``runtime_dir``), private to the user
(mode 0700). Each is written atomically with mode 0600 and holds one JSON object.

``nanohubmcp-serverext-<server pid>.json``
    written by the extension when Jupyter Server loads it and removed when that process exits:
    ``{"version": 1, "pid": <server pid>, "base_url": "/user/x/", "token": true}``. A kernel learns that the
    server which launched it (``JPY_PARENT_PID``, set by jupyter_client for every kernel it
    starts) runs the extension by finding this file with that pid, and the pid alive; ``token``
    says whether that server requires its token (never the token), so the kernel's status can say
    that a client's URL needs ``?token=<Jupyter token>`` (missing, as written by an earlier
    version: taken as true, Jupyter Server's default).

``nanohubmcp-port-<port>.json``
    written by a kernel while one of its MCP servers listens on ``<port>`` (removed when it
    stops): ``{"version": 1, "port": <port>, "kernel_id": "<id>", "pid": <kernel pid>}``.
    The extension forwards ``<base_url>nanohubmcp/<port>/`` only when this file exists and
    names a kernel that the same Jupyter server is running now in the process that wrote it, so a
    stale file (the kernel died, even if restarted under the same id) or a port no kernel
    registered is refused.

Nothing here imports Jupyter Server or IPython: the kernel side and the extension both use it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

__all__ = [
    "FORMAT",
    "ROUTE",
    "descends_from",
    "is_alive",
    "kernel_id_of",
    "marker_path",
    "port_path",
    "read_marker",
    "read_port",
    "remove_if_owned",
    "write_json",
]

FORMAT = 1
"""Version of both files' shape (a reader ignores another version)."""
ROUTE = "nanohubmcp"
"""The extension's path segment under the server's ``base_url``: ``<base_url>nanohubmcp/<port>/``."""
MAX_FILE_BYTES = 4096
"""Longest file either side reads (they are a few dozen bytes)."""

_KERNEL_FILE = re.compile(r"^kernel-([0-9A-Za-z-]+)\.json$")


def marker_path(runtime_dir: str | Path, pid: int) -> Path:
    """Where the extension running in server process ``pid`` leaves its marker."""
    return Path(runtime_dir) / f"nanohubmcp-serverext-{int(pid)}.json"


def port_path(runtime_dir: str | Path, port: int) -> Path:
    """Where a kernel registers the MCP server it serves on ``port``."""
    return Path(runtime_dir) / f"nanohubmcp-port-{int(port)}.json"


def kernel_id_of(connection_file: str | Path) -> str | None:
    """The kernel id in a Jupyter Server connection file name (``kernel-<id>.json``), else None."""
    found = _KERNEL_FILE.match(Path(connection_file).name)
    return found.group(1) if found else None


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` to ``path`` atomically (a temporary file renamed over it), mode 0600."""
    fd, temp = tempfile.mkstemp(prefix=".nanohubmcp-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _read(path: Path) -> dict[str, Any] | None:
    """The file's object when it is ours and current (right version), else None; never raises."""
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
        data = json.loads(raw) if len(raw) <= MAX_FILE_BYTES else None
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("version") == FORMAT else None


def is_alive(pid: object) -> bool:
    """Whether ``pid`` names a process that exists now (a positive int; never raises)."""
    if isinstance(pid, bool) or not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


MAX_ANCESTRY = 8
"""How many parents :func:`descends_from` climbs (a wrapper or two between a kernel and Python)."""


def descends_from(pid: object, ancestor: int) -> bool:
    """Whether live process ``pid`` is ``ancestor`` or one of its descendants (within
    :data:`MAX_ANCESTRY` generations), by the parent ids in ``/proc/<pid>/stat`` (Linux). Where
    there is no ``/proc``, only ``pid == ancestor`` counts. Never raises."""
    if not is_alive(pid):
        return False
    current = pid
    for _ in range(MAX_ANCESTRY + 1):
        if current == ancestor:
            return True
        try:
            stat = Path(f"/proc/{current}/stat").read_text()
            current = int(stat.rsplit(")", 1)[1].split()[1])  # the field after the state: the parent id
        except (OSError, ValueError, IndexError):
            return False
        if current <= 1:
            return False
    return False


def read_marker(runtime_dir: str | Path, pid: int) -> dict[str, Any] | None:
    """The extension's marker of server process ``pid`` when that process is alive, else None."""
    data = _read(marker_path(runtime_dir, pid))
    if data is None or data.get("pid") != pid or not is_alive(pid) or not isinstance(data.get("base_url"), str):
        return None
    return data


def read_port(runtime_dir: str | Path, port: int) -> dict[str, Any] | None:
    """The registration of ``port`` (``{"port", "kernel_id", "pid"}``) or None when there is none."""
    data = _read(port_path(runtime_dir, port))
    if data is None or data.get("port") != port or not isinstance(data.get("kernel_id"), str):
        return None
    return data


def remove_if_owned(path: Path, key: str, value: object) -> None:
    """Delete ``path`` if its ``key`` still holds ``value`` (another owner may have rewritten it)."""
    data = _read(path)
    if data is not None and data.get(key) == value:
        with contextlib.suppress(OSError):
            path.unlink()
