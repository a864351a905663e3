"""Wire and session state: the request context, sessions, streams, principals, the event bus, change notifications."""

from __future__ import annotations
