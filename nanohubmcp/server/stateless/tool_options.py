"""Tool options of the stateless era, applied at registration: ``x_mcp_headers`` and ``task_support``.

``x_mcp_headers={"region": "Region"}`` marks parameters with ``x-mcp-header`` so clients mirror
them as ``Mcp-Param-Region`` headers; marks written directly in an ``input_schema`` are checked
the same way. ``task_support`` is ``"forbidden"`` (default for ``@tool``), ``"optional"``
(default for ``@async_tool``) or ``"required"`` (clients without the tasks extension are
refused with -32021).

Source: MCP 2026-07-28, Transports § Streamable HTTP (Custom Headers from Tool Parameters);
tasks extension (SEP-2663) § Capability Negotiation.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ...errors import RegistrationError
from ..registry.components import TASK_SUPPORT, Tool
from .headers import MARKS, annotate, header_marks

SUPPORT_LEVELS = ("forbidden", "optional", "required")


def apply_tool_options(tool: Tool, *, x_mcp_headers: Mapping[str, str] | None = None,
                       task_support: str | None = None) -> Tool:
    """Return ``tool`` with its header marks checked (and added) and its task support recorded.

    Raises:
        RegistrationError: a bad mark, an unknown parameter, or an unknown task support level.
    """
    if x_mcp_headers:
        tool = dataclasses.replace(tool, input_schema=annotate(tool.name, tool.input_schema, x_mcp_headers))
    extra: dict[str, Any] = dict(tool.extra)
    extra[MARKS] = header_marks(tool.name, tool.input_schema)
    support = check_task_support(tool.name, task_support)
    if support is not None:
        extra[TASK_SUPPORT] = support
    tool.extra = extra
    return tool


def check_task_support(name: str, value: object) -> str | None:
    """Validate a ``task_support=`` option at registration (here rather than with the tasks
    extension's handlers, which a server loads at its first task request).

    Raises:
        RegistrationError: not one of forbidden/optional/required.
    """
    if value is None or (isinstance(value, str) and value in SUPPORT_LEVELS):
        return value
    raise RegistrationError(
        f"tool '{name}': task_support must be one of {', '.join(SUPPORT_LEVELS)}, got {value!r}")
