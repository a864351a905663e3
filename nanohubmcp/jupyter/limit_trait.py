"""``Limit``: the trait type of ``NanohubMCP``'s limits (``max_result_bytes``, ``max_jobs``, ...).

A whole number with a lower bound, as the keyword of ``MCPServer`` (or ``run()``) it is passed to takes:
what it refuses, that keyword would refuse too, and the refusal names the setting, what it takes and its
default, so the notebook's user knows what to type instead::

    %config NanohubMCP.max_jobs = -1
    UsageError: NanohubMCP.max_jobs must be a number of jobs >= 1, not -1 (default 10000); the setting is unchanged

It owns no setting; :mod:`.config` declares them.
"""

from __future__ import annotations

from typing import Any

from traitlets import Integer, TraitError, TraitType

from ..protocol.message_values import UNWRITTEN_INT, shown_value
from ..protocol.whole_numbers import is_infinity, whole_number, written_whole

__all__ = ["Limit", "wrong_type"]


def wrong_type(obj: Any, trait: TraitType[Any, Any], value: object) -> TraitError:
    """The refusal of ``value``, of a type ``trait`` does not take, in one line naming the setting, what it takes
    (``trait.info_text``) and its default: "<Class>.<name> must be <takes>, not the bool True (default 60.0)"."""
    return TraitError(f"{type(obj).__name__}.{trait.name} must be {trait.info_text}, not the "
                      f"{type(value).__name__} {shown_value(value)} (default {trait.default_value})")


class Limit(Integer[Any, Any]):
    """A whole-number limit of at least ``minimum`` (None too with ``allow_none``); ``takes`` says what it
    takes, in the refusals: "<Class>.<name> must be <takes>, not -1 (default <default>)" below the bound,
    and "<Class>.<name> must be <takes>, not the str 'many' (default <default>)" for a wrong type.
    ``True`` (numpy's ``True_`` too) is refused as a wrong type, not taken for 1, as ``MCPServer`` refuses it; any
    whole number becomes the int (numpy's ``int64``, ``1e9``, ``1e30``: :func:`~..protocol.whole_numbers.whole_number`,
    MCPServer's rule), a number that is not whole (``5.5``, ``Fraction(7, 2)``), a string or a ``Decimal`` is refused
    with what to write where it reads as a number ("; write a whole number: 6"). With ``no_limit`` (None means no
    limit) ``float("inf")`` is that None, as ``MCPServer`` reads it; without, inf is refused. An int of over 4,300
    digits (``10**5000``) is refused too, named so: Python writes no such int as text, so ``%config NanohubMCP``
    could not list it.
    """

    def __init__(self, default: int | None, *, minimum: int, takes: str, allow_none: bool = False,
                 no_limit: bool = False, help: str) -> None:
        super().__init__(default, help=help)
        self.allow_none = allow_none  # after: Int's typed overloads take only a literal True or False
        self.minimum = minimum
        self.info_text = takes
        self.no_limit = no_limit

    def validate(self, obj: Any, value: Any) -> Any:
        if (value is None and self.allow_none) or (self.no_limit and is_infinity(value)):
            return None
        number = whole_number(value)  # any whole number as an int (numpy's int64, 1e9), as MCPServer reads it
        if number is None:  # 5.5, a bool, a string: "..., not the float 5.5 (default 1); write a whole number: 6"
            raise TraitError(f"{wrong_type(obj, self, value)}{written_whole(value)}")
        if number < self.minimum or shown_value(number) == UNWRITTEN_INT:
            raise TraitError(f"{type(obj).__name__}.{self.name} must be {self.info_text}, not {shown_value(number)} "
                             f"(default {self.default_value})")
        return number

    def error(self, obj: Any, value: Any, error: Exception | None = None, info: str | None = None) -> Any:
        """A wrong type, refused in the words of a value below the bound (traitlets' own names no default)."""
        if obj is None or error is not None:
            super().error(obj, value, error, info)
        raise wrong_type(obj, self, value)
