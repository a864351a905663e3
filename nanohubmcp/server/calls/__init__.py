"""Running user functions: the tool-call service, invocation on the right thread, Context, progress.

The worker pool for sync functions is :mod:`.workers`; why a call on its inline lane (the event loop)
was slow, and whether the time was its own, is :mod:`.slow_calls`'s.
"""

from __future__ import annotations
