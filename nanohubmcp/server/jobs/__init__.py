"""Jobs: long-running tool calls that answer at once and are polled later, and where their records live."""

from __future__ import annotations
