"""Function signatures -> JSON Schema, and validation of call arguments against it.

``describe_function`` turns a Python function into an MCP input schema, a description and
an argument coercer; ``ArgumentValidator`` / ``OutputValidator`` check values against a
schema with jsonschema (Draft 2020-12 unless the schema says otherwise), and
``CheckedArgumentValidator`` then runs a check of the tool's own (which raises ``CheckPending``
when it must first load something slow: the caller waits for it off the event loop). This package
depends only on ``nanohubmcp.errors`` (layering: protocol -> schema -> server).
"""

from __future__ import annotations

from nanohubmcp.schema.generate import Signature, describe_function
from nanohubmcp.schema.validate import (
    ArgumentValidator,
    CheckedArgumentValidator,
    CheckPending,
    GeneratedSchema,
    OutputValidator,
)

__all__ = [
    "ArgumentValidator",
    "CheckPending",
    "CheckedArgumentValidator",
    "GeneratedSchema",
    "OutputValidator",
    "Signature",
    "describe_function",
]
