"""Who holds a keep reservation (:mod:`.kept_slot`): the process that stored it, named by its host, its
process id and that process's start time, and whether that process is known to have ended.

A process on the same host is known to have ended when its id names no process now, a dead one not yet
reaped, or one that started at another time (the id reused). The start time is the ``starttime`` field of
``/proc/<pid>/stat`` (clock ticks since boot, Linux); where there is no ``/proc`` it is None, and only an id
that names no process counts. A process on another host is never known here to have ended (its reservation
waits out its bound).
What this module does not do: read or write the reservation (:mod:`.kept_slot`).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from typing import Any

__all__ = ["ended", "holder"]

_mine: tuple[int, dict[str, Any]] | None = None  # (the pid it was made for: a forked worker makes its own)


def holder() -> dict[str, Any]:
    """This process, as a reservation names it: ``{"host": str, "pid": int, "start": int | None}``."""
    global _mine
    pid = os.getpid()
    if _mine is None or _mine[0] != pid:
        stat = _stat(pid)
        _mine = (pid, {"host": socket.gethostname(), "pid": pid, "start": stat[1] if stat is not None else None})
    return dict(_mine[1])


def ended(marker: Mapping[str, Any]) -> bool:
    """Whether the process ``marker`` names (its ``host``, ``pid`` and ``start``, as :func:`holder` gives them)
    ran on this host and is no longer running: its id names no process, or one started at another time. False
    for another host's, for a marker without them (stored by an older version), and when unsure. Never raises."""
    pid, start = marker.get("pid"), marker.get("start")
    if marker.get("host") != socket.gethostname() or isinstance(pid, bool) or not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # (PermissionError: it runs, as another user)
        pass
    now = _stat(pid)
    if now is None:
        return False
    return now[0] in (b"Z", b"X") or (isinstance(start, int) and now[1] != start)  # (dead, not yet reaped)


def _stat(pid: int) -> tuple[bytes, int] | None:
    """The state of process ``pid`` (``b"Z"``: dead, not reaped yet) and its start time (clock ticks since
    boot), or None (no ``/proc``, or it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()  # (after the name, which may hold spaces and ')')
        return fields[0], int(fields[19])  # fields 3 and 22 of the line
    except (OSError, ValueError, IndexError):
        return None
