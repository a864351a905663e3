"""``Real``: the trait type of ``NanohubMCP``'s real-number settings (``tool_timeout``, ``figure_dpi``, ...).

traitlets' ``Float`` takes ``True`` as ``1.0`` (``%config NanohubMCP.tool_timeout = True`` was a one-second limit the
exported ``MCPServer(tool_timeout=True)`` refused), turns an int into a float with ``float()``, which raises
``OverflowError`` for an int past a float's range (``10**400``), and refused a ``Fraction`` (a real number, which
``MCPServer(...)`` takes) in its own generic words. ``Real`` hands every real number but a bool (an int of any size,
a ``Fraction``, numpy's ``int64`` and ``float64``) to the setting's own validator as it is, which reads it as a float
as ``MCPServer(...)`` does (``tool_timeout = 10**400``: no limit) or refuses it naming it as typed (cut to 60
characters), never as ``-inf``; anything else (a bool, a ``Decimal``, a string) it refuses in one line naming the
setting, what it takes, the value and, where it reads as a number, how to write it (``0.0005``). Each setting of
this type has such a validator. It owns no setting; :mod:`.config` declares them.
"""

from __future__ import annotations

import numbers
from typing import Any

from traitlets import Float, TraitError

from ..protocol.seconds import written_as_a_number
from .limit_trait import wrong_type

__all__ = ["Real"]


class Real(Float[Any, Any]):
    """A float setting (None too with ``allow_none``); ``takes`` says what it takes, in the refusal of a bool:
    "<Class>.<name> must be <takes>, not the bool True (default <default>)"."""

    def __init__(self, default: float | None, *, takes: str, allow_none: bool = False, help: str) -> None:
        super().__init__(default, help=help)
        self.allow_none = allow_none  # after: Float's typed overloads take only a literal True or False
        self.info_text = takes

    def validate(self, obj: Any, value: Any) -> Any:
        if value is None and self.allow_none:
            return value
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TraitError(f"{wrong_type(obj, self, value)}{written_as_a_number(value)}")
        return value  # any real number (a Fraction, numpy's int64): the setting's validator reads it as a float
