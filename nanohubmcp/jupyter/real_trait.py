"""``Real``: the trait type of ``NanohubMCP``'s real-number settings (``tool_timeout``, ``figure_dpi``, ...).

traitlets' ``Float`` takes ``True`` as ``1.0`` (``%config NanohubMCP.tool_timeout = True`` was a one-second limit the
exported ``MCPServer(tool_timeout=True)`` refused), and turns an int into a float with ``float()``, which raises
``OverflowError`` for an int past a float's range (``10**400``). ``Real`` refuses a bool in one line, as ``Limit``
does, and hands an int past a float's range to the setting's own validator as it is, which reads it as
``MCPServer(...)`` does (``tool_timeout = 10**400``: no limit) or refuses it naming it as typed (cut to 60
characters), never as ``-inf``. Each setting of this type has such a validator. It owns no setting; :mod:`.config`
declares them.
"""

from __future__ import annotations

from typing import Any

from traitlets import Float

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
        if isinstance(value, bool):
            raise wrong_type(obj, self, value)
        if isinstance(value, int):
            try:
                float(value)
            except OverflowError:
                return value  # the setting's validator reads or refuses it
        return super().validate(obj, value)
