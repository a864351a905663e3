"""How a tool's value is shaped into its result: the size over which it is kept as a resource and linked, the most an
answer may carry, the most one sent as an SSE event may, and the resolution of a figure drawn as PNG. Changed while
serving (the Jupyter configurable's settings: :meth:`ResultOptions.update`), read by the next call's shaping. Where a
result too large to inline goes is :mod:`.sink`'s; the kept results themselves are :mod:`.store`'s.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from . import DEFAULT_MAX_ANSWER_BYTES, DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_INLINE_BYTES

__all__ = ["ResultOptions", "no_limit_past_range"]


def no_limit_past_range(value: float | None) -> int | None:
    """A byte limit whose None is "no limit" (``max_inline_bytes``, ``max_result_bytes``, ``max_event_bytes``) as kept:
    an int past a float's range (``10**400``) is None too, the rule ``tool_timeout`` follows (a size no data reaches,
    where a limit held as given would still pick the limits a limited server applies); any other as an int."""
    return None if value is None or value > sys.float_info.max else int(value)


@dataclass
class ResultOptions:
    """How results are shaped.

    Attributes:
        max_inline_bytes: results larger than this (bytes of JSON text, or of PNG data) are kept
            as a resource and linked; None inlines everything.
        figure_dpi: dots per inch of matplotlib figures turned into PNG; None uses each figure's
            own ``dpi`` (so the image is ``figsize * dpi`` pixels).
        max_result_bytes: most bytes of JSON a result may put in an answer (one not kept as a
            resource: every REST answer, any MCP one with ``max_inline_bytes`` None); None: no limit.
        max_event_bytes: most bytes of one SSE event an answer or an ask goes in (default 1 MiB, the official
            ``mcp`` client's cap, :mod:`.event_bound`); None: no bound, for clients reading events of any size.
    """

    max_inline_bytes: int | None = DEFAULT_MAX_INLINE_BYTES
    figure_dpi: float | None = None
    max_result_bytes: int | None = DEFAULT_MAX_ANSWER_BYTES
    max_event_bytes: int | None = DEFAULT_MAX_EVENT_BYTES

    def __post_init__(self) -> None:
        self.max_inline_bytes = no_limit_past_range(self.max_inline_bytes)
        self.max_result_bytes = no_limit_past_range(self.max_result_bytes)
        self.max_event_bytes = no_limit_past_range(self.max_event_bytes)

    def update(self, setting: str, value: float | None) -> None:
        """Change ``max_inline_bytes``, ``figure_dpi``, ``max_result_bytes`` or ``max_event_bytes`` (a value
        checked already); the next call shapes its result with it.

        Raises:
            ValueError: another setting name.
        """
        if setting in ("max_inline_bytes", "max_result_bytes", "max_event_bytes"):
            setattr(self, setting, no_limit_past_range(value))
        elif setting == "figure_dpi":
            self.figure_dpi = value
        else:
            raise ValueError(f"no result setting {setting!r} (max_inline_bytes, figure_dpi, max_result_bytes, "
                             "max_event_bytes)")
