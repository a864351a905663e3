"""A server process whose Redis subscription is lost and cannot be made again until the test says so.

The process connects as a Redis user of its own (:func:`own_user_url`); :func:`subscription_down` takes
``SUBSCRIBE`` away from that user (ACL) and kills its subscription (``CLIENT KILL USER ... TYPE pubsub``), so
what is published meanwhile reaches nobody; on leaving, ``SUBSCRIBE`` is given back and the subscription waited
for. The window of a lost subscription is made, not hoped for.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import redis
from support import wait_until

PASSWORD = "secret"


def own_user_url(admin: redis.Redis, url: str, user: str) -> str:
    """``url`` as the Redis user ``user`` (made now, allowed everything)."""
    admin.acl_setuser(user, enabled=True, passwords=[f"+{PASSWORD}"], keys=["*"], channels=["*"], commands=["+@all"])
    return url.replace("redis://", f"redis://{user}:{PASSWORD}@", 1)


def subscribed(admin: redis.Redis, user: str) -> int:
    """How many pub/sub connections ``user`` holds."""
    return sum(1 for client in admin.client_list(_type="pubsub") if client.get("user") == user)


@contextmanager
def subscription_down(admin: redis.Redis, user: str) -> Iterator[None]:
    """``user``'s subscription lost and not made again inside; made again on leaving."""
    admin.acl_setuser(user, enabled=True, commands=["-subscribe"])
    assert admin.execute_command("CLIENT", "KILL", "USER", user, "TYPE", "pubsub") >= 1
    wait_until(lambda: subscribed(admin, user) == 0, "the subscription gone")
    yield
    admin.acl_setuser(user, enabled=True, commands=["+subscribe"])
    wait_until(lambda: subscribed(admin, user) == 1, "the subscription made again")
