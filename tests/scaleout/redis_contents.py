"""What a Redis holds, as text, for the tests that check it holds no secret: :func:`everything_held`."""

from __future__ import annotations

from typing import Any

import redis


def everything_held(store: redis.Redis) -> list[tuple[str, str]]:
    """Every key of the store and each value it holds, as text."""
    found: list[tuple[str, str]] = []
    for key in store.scan_iter(count=1000):
        kind = store.type(key)
        values: Any
        if kind == "string":
            values = [store.get(key)]
        elif kind == "hash":
            values = [f"{k}={v}" for k, v in store.hgetall(key).items()]
        elif kind == "set":
            values = list(store.smembers(key))
        elif kind == "zset":
            values = list(store.zrange(key, 0, -1))
        elif kind == "stream":
            values = [f"{k}={v}" for _, fields in store.xrange(key) for k, v in fields.items()]
        elif kind == "list":
            values = list(store.lrange(key, 0, -1))
        else:
            values = []
        found.append((key, repr(values)))
    return found
