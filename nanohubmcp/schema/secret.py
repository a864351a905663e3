"""``Secret``: the annotation of a tool parameter whose value must never be kept.

``def login(user: str, password: Secret) -> ...``: the input schema says
``{"type": "string", "format": "password", "writeOnly": true}`` (JSON Schema 2020-12,
Validation § 9.4 ``writeOnly``; OpenAPI's ``password`` format), clients may mask the field, and
the server's provenance records store the argument's name, never its value.
"""

from __future__ import annotations

from typing import Annotated

Secret = Annotated[str, {"format": "password", "writeOnly": True}]
"""A string argument that is never stored (provenance records keep its name only)."""
