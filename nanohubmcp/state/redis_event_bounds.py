"""What bounds the event logs in Redis beyond their count of entries: the finished POST response logs of a session
and of a principal (:data:`TRIM`, :data:`DROP`: :mod:`.redis_events` says which bounds), and the bytes of a running
stream's log (:class:`LogBytes`).

A running stream's log holds at most :data:`RUNNING_BYTES` of its messages, as a stream one process keeps does
(``nanohubmcp.server.wire.streams.KEEP_BYTES``): past it the oldest are deleted first, the newest kept whatever its
size. Each process counts what it wrote to a log (the entries' ids, as ``XADD`` answered them, and their messages'
size) and, once that passes the bound, deletes from the log every entry older than the oldest it keeps
(``XTRIM MINID``, exact), and marks the log so (``<log key>:cut``, a string living as long as the log: :func:`cut_key`).
The log of a POST response stream has one writer, the process serving its request: it holds at most the bound. The log
of a session's stream of unrelated messages, which every process may write to, holds at most the bound of each
writer's messages. A client resuming a POST stream marked so from before its oldest message is answered as for a
stream no longer kept (``RelayStream.covers``).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict, deque

__all__ = ["DROP", "RUNNING_BYTES", "TRIM", "TRIM_SHA", "LogBytes", "cut_key"]

RUNNING_BYTES = 4 * 1024 * 1024
"""Bytes of messages a running stream's log holds (of each writer's); past it the oldest are deleted."""
PIECE_BYTES = RUNNING_BYTES // 64
"""Consecutive entries counted together up to this many bytes (a log deleted from is deleted from by whole pieces:
at most this many bytes more than the bound asks)."""
MAX_LOGS = 4096
"""Logs a process counts at most; past it the least recently written is forgotten (its log expires with its
session)."""
MAX_COUNTED = 1024
"""Entries counted per log at most: older ones are gone from it already (Redis keeps ~256 by whole nodes)."""

TRIM = """
local function trim(list, counter, most, room)
  local newest = tonumber(ARGV[2])
  local n = redis.call('RPUSH', list, ARGV[1])
  local total = redis.call('INCRBY', counter, newest)
  local gone = 0
  while n > 1 and (n > most or total - gone - newest > room) do
    local size, key = string.match(redis.call('LPOP', list), '^(%d+) (.*)$')
    gone = gone + tonumber(size)
    redis.call('UNLINK', key)
    n = n - 1
  end
  if gone > 0 then redis.call('DECRBY', counter, gone) end
  redis.call('EXPIRE', list, ARGV[5])
  redis.call('EXPIRE', counter, ARGV[5])
  return n
end
local n = trim(KEYS[1], KEYS[2], tonumber(ARGV[3]), tonumber(ARGV[4]))
if #KEYS == 4 then trim(KEYS[3], KEYS[4], tonumber(ARGV[6]), tonumber(ARGV[7])) end
return n
"""
"""Lists a finished log and deletes the oldest past the bounds, the session's then its principal's, in one step
(module docstring). A log the session's bound deleted stays counted in its principal's list until that list lets
it go (and one the principal's deleted, in the session's): the newest logs within both bounds are kept.

KEYS: ``ek:<session>``, ``eb:<session>`` (the bytes its list names), and with a principal ``pk:<principal>``,
``pb:<principal>``; ARGV: ``<bytes> <key of the log>``, its bytes, most logs and most bytes beyond the newest log's
of a session, seconds the lists live, most logs and most bytes beyond the newest log's of a principal."""

DROP = """
for _, entry in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  redis.call('UNLINK', string.match(entry, '^%d+ (.*)$'))
end
return redis.call('UNLINK', KEYS[1], KEYS[2])
"""
"""Deletes a session's finished logs and their list (KEYS: ``ek:<session>``, ``eb:<session>``): its end."""

TRIM_SHA = hashlib.sha1(TRIM.encode()).hexdigest()  # Redis names a script by its SHA-1


def cut_key(log: str) -> str:
    """The key marking that the log ``log`` (its key) had messages deleted for its bytes' bound."""
    return f"{log}:cut"


class _Log:
    """What one process wrote to one log: pieces ``[id of the first entry, bytes, entries]``, oldest first."""

    __slots__ = ("bytes", "entries", "pieces")

    def __init__(self) -> None:
        self.pieces: deque[list[str | int]] = deque()
        self.bytes = 0
        self.entries = 0


class LogBytes:
    """The bytes this process wrote to each running stream's log (module docstring); one per event log writer."""

    def __init__(self, bound: int = RUNNING_BYTES, piece: int = PIECE_BYTES) -> None:
        self.bound = bound
        self.piece = piece
        self._logs: OrderedDict[str, _Log] = OrderedDict()

    def written(self, key: str, entry_id: str, size: int, *, last: bool = False) -> str | None:
        """Count the entry ``entry_id`` (its message ``size`` bytes) written to the log ``key``; the entry id to
        delete the log's older entries before (``XTRIM MINID``) when its bytes passed the bound, else None.
        ``last``: the stream's last entry (the log is forgotten)."""
        log = self._logs.pop(key, None) or _Log()
        if not last:
            self._logs[key] = log
            if len(self._logs) > MAX_LOGS:
                self._logs.popitem(last=False)
        newest = log.pieces[-1] if log.pieces else None
        if newest is not None and int(newest[1]) + size <= self.piece:
            newest[1] = int(newest[1]) + size
            newest[2] = int(newest[2]) + 1
        else:
            log.pieces.append([entry_id, size, 1])
        log.bytes += size
        log.entries += 1
        while log.entries - int(log.pieces[0][2]) >= MAX_COUNTED:
            self._drop(log)
        if log.bytes <= self.bound:
            return None
        while log.bytes > self.bound and len(log.pieces) > 1:
            self._drop(log)
        return str(log.pieces[0][0])

    @staticmethod
    def _drop(log: _Log) -> None:
        _, size, entries = log.pieces.popleft()
        log.bytes -= int(size)
        log.entries -= int(entries)
