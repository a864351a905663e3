"""The job store's steps in Redis that must happen at once: Lua scripts, each run atomically.

:class:`~nanohubmcp.state.redis_jobs.RedisJobBackend` registers each (``register_script``) and calls
it with the keys and arguments its docstring lists, in that order; the key names are that module's
layout (its docstring), under the server's namespace. A script reads a record's fields as the JSON
the back end stores them in (a status is ``'"completed"'``). Nothing here talks to Redis.
"""

from __future__ import annotations

__all__ = ["CHANGED", "END", "INSERT", "KEEP_DATA", "PROGRESS", "PURGE"]

_EXPIRES_AT = """
local function expires_at(record)
  local ends = redis.call('HMGET', record, 'finished_at', 'ttl')
  if not ends[1] and not ends[2] then return -math.huge end
  local finished, ttl = tonumber(ends[1]), tonumber(ends[2])
  if finished and ttl then return finished + ttl end
  return nil
end
"""
"""When the job of the record at the key ``record`` expires, as Python's
:func:`~.redis_job_expiry.expires_at` says (``finished_at + ttl``, epoch seconds), ``-math.huge`` when the record
is gone (expired at any time), nil while it runs (``finished_at`` JSON null): the test INSERT's walk of a full share
and PURGE's walk make, written once and put before each."""

INSERT = _EXPIRES_AT + """
local total = redis.call('ZCARD', KEYS[1])
if total >= tonumber(ARGV[1]) then return 1 end
local owned = redis.call('ZCARD', KEYS[2])
if owned >= tonumber(ARGV[2]) then
  for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
    local expires = expires_at(string.sub(KEYS[3], 1, -1 - #ARGV[3]) .. id)
    if expires and expires < tonumber(ARGV[4]) then
      redis.call('ZREM', KEYS[2], id)
      redis.call('ZREM', KEYS[1], id)
    end
  end
  if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[2]) then return 2 end
end
redis.call('HSET', KEYS[3], unpack(ARGV, 5))
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[3])
redis.call('SADD', KEYS[4], ARGV[3])
return 0
"""
"""Counts the bounds and adds the record in one step, so two processes cannot both slip past a bound.
Returns 0 (added), 1 (``max_total`` reached) or 2 (the owner's ``max_per_owner`` reached, once the
ids whose record is gone, or whose job expired by ``created`` (its ``finished_at`` + ``ttl``: Redis keeps
the record ``KEEP_AFTER_TTL`` longer), are dropped from the indexes).

KEYS: ``jobs``, ``jobs:o:<owner>``, ``job:<id>``, ``jobs:live``; ARGV: max_total, max_per_owner, id,
created, field, value..."""

END = """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 0 end
if status == '"completed"' or status == '"cancelled"' then return 0 end
if status == '"failed"' and (ARGV[4] == '' or redis.call('HGET', KEYS[1], 'runner') ~= ARGV[4]
    or redis.call('HGET', KEYS[1], 'status_message') ~= ARGV[5]) then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 7))
redis.call('SREM', KEYS[2], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[1])
if ARGV[6] ~= '' then redis.call('ZADD', KEYS[7], ARGV[6], ARGV[2]) end
if ARGV[3] == '1' then redis.call('PUBLISH', KEYS[3], ARGV[2]) end
if redis.call('DEL', KEYS[4], KEYS[6]) > 0 then redis.call('PUBLISH', KEYS[5], ARGV[2]) end
return 1
"""
"""Stores a job's end unless its record holds one already (a cancel stored by another process is
final) other than the guessed end ARGV[4..5] names (runner, message as JSON; "" for none), scores the
job's expiry (ARGV[6], epoch seconds; "" for none) in the expiry index, names a cancelled job on the
cancel channel, and an awaited or followed one (its marks dropped) on the end channel, in one step.
Returns 1 when the end was stored.

KEYS: ``job:<id>``, ``jobs:live``, ``jobs:cancel``, ``awaited:<id>``, ``jobs:end``, ``followed:<id>``,
``jobs:expires``; ARGV: expire seconds, id, 1 to publish, runner, message, expires at, field, value..."""

CHANGED = """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 0 end
if status == '"completed"' or status == '"failed"' or status == '"cancelled"' then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PUBLISH', KEYS[3], ARGV[1]) end
return 1
"""
"""Stores a running job's status fields unless its record holds an end (a cancel stored by another
process wins), and names the job on the status channel when a process follows it, in one step.
Returns 1 when written.

KEYS: ``job:<id>``, ``followed:<id>``, ``jobs:status``; ARGV: id, field, value..."""

PROGRESS = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'progress', ARGV[2], 'progress_total', ARGV[3], 'progress_message', ARGV[4])
redis.call('HINCRBY', KEYS[1], 'progress_updates', 1)
local ended = redis.call('HGET', KEYS[1], 'finished_at')
if not ended or ended == 'null' then redis.call('HSET', KEYS[1], 'updated', ARGV[5]) end
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PUBLISH', KEYS[3], ARGV[1]) end
return 1
"""
"""Stores one progress update (counted) of a job whose record exists, and names the job on the status
channel when a process follows it, in one step.

KEYS: ``job:<id>``, ``followed:<id>``, ``jobs:status``; ARGV: id, progress, total, message, updated (each
JSON; ``updated`` is stored while the record holds no end)"""

KEEP_DATA = """
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local held = redis.call('HGET', KEYS[1], 'kept_data')
if (not held and ARGV[2] == '') or held == ARGV[2] then
  if ARGV[1] == '' then
    redis.call('HDEL', KEYS[1], 'kept_data')
    return false
  end
  redis.call('HSET', KEYS[1], 'kept_data', ARGV[1])
  return ARGV[1]
end
return held
"""
"""Stores a job's ``kept_data`` (its blocks, or a keep's reservation) unless its record holds another than the
one named (its JSON as stored, "" for none), in one step: of several processes keeping one job's data, the
first stored wins; "" as the kept data removes the field (a reservation released). Returns the ``kept_data``
the record holds then (as JSON), nil when it holds none or the record is gone.

KEYS: ``job:<id>``; ARGV: kept data, the kept data replaced (each JSON, or "")"""

PURGE = _EXPIRES_AT + """
local now, batch, walk = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[5])
local gone = {}
local function drop(id)
  local owner = redis.call('HGET', ARGV[3] .. id, 'owner_key')
  if owner then redis.call('ZREM', ARGV[4] .. cjson.decode(owner), id) end
  redis.call('ZREM', KEYS[1], id)
  redis.call('ZREM', KEYS[2], id)
  redis.call('SREM', KEYS[3], id)
  gone[#gone + 1] = id
end
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[1], 'LIMIT', 0, batch)) do
  drop(id)
end
local place, last = string.match(redis.call('GET', KEYS[4]) or '0', '^(%d+) ?(.*)$')
local at = tonumber(place or '0')
local rank = last and last ~= '' and redis.call('ZRANK', KEYS[1], last)
if rank then at = rank + 1 end
local ids = redis.call('ZRANGE', KEYS[1], at, at + walk - 1)
local scored = #ids > 0 and redis.call('ZMSCORE', KEYS[2], unpack(ids)) or {}
local kept, last_kept = 0, ''
for i, id in ipairs(ids) do
  local dropped = false
  local expires = not scored[i] and expires_at(ARGV[3] .. id)
  if expires and expires < now then
    drop(id)
    dropped = true
  elseif expires then
    redis.call('ZADD', KEYS[2], expires, id)
  end
  if not dropped then kept, last_kept = kept + 1, id end
end
if #ids < walk then redis.call('DEL', KEYS[4]) else redis.call('SET', KEYS[4], (at + kept) .. ' ' .. last_kept) end
return gone
"""
"""Drops from the indexes (``jobs``, the owner's, ``jobs:expires``, ``jobs:live``) the ids of the jobs expired at
ARGV[1] (their ``finished_at`` + ``ttl`` before it): at most ARGV[2] of the expiry index's earliest, then, of the next
ARGV[5] ids of ``jobs`` from the walk's place (back to the first at the end: every id is looked at over successive
calls), each one the expiry index lacks — its record gone, or its end written by an earlier version
that kept no index — dropped when its record is gone or expired, else scored in the index. The records stay until
their ``EXPIRE``. Returns the ids dropped (an id may have left ``jobs`` before). The walk's place, ``jobs:scan``, is
``"<rank> <id>"``: the last id it kept, and the rank after it once the ids it dropped no longer count (ids after
a dropped one move down to its rank); the next call goes on after that id wherever it stands then (ids dropped
before it meanwhile), or from the rank when it is gone (a bare rank, as an earlier version wrote, too).

KEYS: ``jobs``, ``jobs:expires``, ``jobs:live``, ``jobs:scan``; ARGV: now, how many, the prefix of ``job:<id>``,
the prefix of ``jobs:o:<owner>``, how many to walk (``ZMSCORE``: Redis 6.2)"""
