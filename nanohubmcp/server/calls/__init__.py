"""Running user functions: the tool-call service, invocation on the right thread, Context, progress."""

from __future__ import annotations
