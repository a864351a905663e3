"""Whether the processes sharing a Redis state store also share one state directory: said once, at start.

A large result one process keeps (a ``resource_link``) lives in that process's state directory, so processes sharing
a ``state_url`` must share one ``state_dir`` to read one another's links. Each process's heartbeat
(``proc:<process>``, :mod:`.redis_channels`) holds its :func:`state_dir_mark`; ``procs`` is the set of processes
that registered one, expiring with the last heartbeat that refreshes it. At start a process registers itself and
reads its live peers' marks in one script (:data:`COMPARE`: one round trip, however many peers; dead members are
dropped on the way, so the set holds the live processes and the one starting), and logs one WARNING when a peer's
state directory is another. Nothing is read after the start (a heartbeat refreshes the set's time to live): no
cost per call.

The mark is ``<digest> <host>``: the first 16 hex digits of the SHA-256 of the directory's resolved path, and the
host name. Anyone who reads the store (its URL and password: the servers' operators) sees the host names, not the
paths; a digest only tells whether two paths are equal (a path that can be guessed can be checked against it). The
same path on two hosts counts as one directory (the documented setup mounts shared storage at one path; a machine's
own disk at the same path on two hosts cannot be told from it).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import socket
from collections.abc import Callable
from typing import Any

from .errors import StateUnavailable

log = logging.getLogger("nanohubmcp.state")

MOST_PEERS = 64
"""The most peers' marks :data:`COMPARE` returns (the warning names their hosts)."""

COMPARE = """
redis.call('set', ARGV[1] .. ARGV[2], ARGV[3], 'ex', ARGV[4])
local others = {}
for _, p in ipairs(redis.call('smembers', KEYS[1])) do
  if p ~= ARGV[2] then
    local mark = redis.call('get', ARGV[1] .. p)
    if not mark then
      redis.call('srem', KEYS[1], p)
    elseif #others < tonumber(ARGV[5]) then
      table.insert(others, mark)
    end
  end
end
redis.call('sadd', KEYS[1], ARGV[2])
redis.call('expire', KEYS[1], ARGV[4])
return others
"""
"""KEYS[1] the set of registered processes; ARGV: the heartbeat keys' prefix, this process, its mark, the
heartbeat's time to live (seconds), :data:`MOST_PEERS`. Writes this process's heartbeat with its mark, drops the
members whose heartbeat lapsed, adds this process (the set lives as long as a heartbeat: each one refreshes it);
returns the live peers' marks."""


def state_dir_mark(directory: str) -> str:
    """This process's mark for the state directory ``directory``: ``"<16 hex digits> <host name>"``, the digits
    those of the SHA-256 of the resolved path (symbolic links followed: two names of one folder are one)."""
    digest = hashlib.sha256(os.path.realpath(directory).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{digest} {socket.gethostname()}"


def apart(mark: str, peers: list[str]) -> list[str]:
    """The hosts (sorted, each once) of the ``peers`` marks whose directory differs from ``mark``'s; a mark
    without a digest (a heartbeat of an earlier version: ``"1"``) is not compared."""
    digest = mark.split(" ", 1)[0]
    return sorted({host for found in peers for sign, _, host in [found.partition(" ")] if host and sign != digest})


async def compare_state_dirs(guard: Callable[[], contextlib.AbstractAsyncContextManager[Any]],
                             key: Callable[..., str], process: str, directory: str, ttl: int, shown: str) -> None:
    """Register this process's state directory ``directory`` and warn once if a live peer's is another (a DEBUG line
    when none is).

    Args:
        guard: the pooled client, guarded (an unreachable store raises ``StateUnavailable``: nothing said).
        key: the key of a part, under the server's namespace.
        process: this process's id (its heartbeat is ``key("proc", process)``).
        directory: this process's state directory (as resolved; named in the warning, in this process's log only).
        ttl: the heartbeat's time to live, seconds.
        shown: the store's URL as logged.
    """
    mark = state_dir_mark(directory)
    try:
        async with guard() as client:
            peers = await client.eval(COMPARE, 1, key("procs"), key("proc", ""), process, mark, ttl, MOST_PEERS)
    except StateUnavailable:
        return  # (said by the guard; the next start compares again)
    except Exception as exc:  # a store that will not run scripts: nothing to compare, serving goes on
        log.debug("shared state store %s: state_dir not compared (%s: %s)", shown, type(exc).__name__, exc)
        return
    hosts = apart(mark, [p.decode() if isinstance(p, bytes) else str(p) for p in peers])
    if not hosts:
        log.debug("shared state store %s: state_dir compared with %d other live process(es): none is another",
                  shown, len(peers))
    else:
        log.warning("shared state store %s: this process's state_dir %s is not the one other live processes of this "
                    "server use (on %s): a result one process keeps as a link cannot be read through another; give "
                    "every process sharing this state_url the same --state-dir (state_dir=, NANOHUBMCP_STATE_DIR), "
                    "on storage they all share", shown, directory, ", ".join(hosts))
