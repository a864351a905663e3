"""``Real``: the trait type of ``NanohubMCP``'s real-number settings (``tool_timeout``, ``figure_dpi``, ...).

traitlets' ``Float`` turns an int into a float with ``float()``, which raises ``OverflowError`` for an int past a
float's range (``10**400``): ``%config NanohubMCP.tool_timeout = 10**400`` ended in a traceback, while
``MCPServer(tool_timeout=10**400)`` reads it as no limit. ``Real`` reads such an int as infinity (minus infinity
below), as :func:`~nanohubmcp.protocol.seconds.seconds_of` does, and leaves the setting's own validator to take or
refuse it. It owns no setting; :mod:`.config` declares them.
"""

from __future__ import annotations

import math
from typing import Any

from traitlets import Float

__all__ = ["Real"]


class Real(Float[Any, Any]):
    """A float setting (None too with ``allow_none``); a bool stays refused, as ``Float`` refuses it, and an int
    past a float's range becomes ``±inf`` instead of raising ``OverflowError``."""

    def validate(self, obj: Any, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            try:
                float(value)
            except OverflowError:
                value = math.inf if value > 0 else -math.inf
        return super().validate(obj, value)
