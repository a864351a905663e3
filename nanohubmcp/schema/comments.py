"""PEP 484 type comments read from a function's real source tokens.

Two forms are understood (PEP 484 § Suggested syntax for Python 2.7 and straddling code):

* the function form, a comment right after the signature's colon, on the same line or the
  line(s) just below it, before any statement or docstring::

      def wave(frequency, wavelength=None):  # type: (float, float) -> dict

* the per-argument form, one comment after each parameter inside the parentheses::

      def wave(frequency,   # type: float
               wavelength,  # type: float
               ):

Comments are found with :mod:`tokenize`, so text that merely looks like a type comment
inside a docstring or a string default is never taken for one. This module returns the
expressions as text; ``hints.evaluate`` turns them into types.
"""

from __future__ import annotations

import inspect
import io
import re
import tokenize
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

_TYPE_COMMENT = re.compile(r"#\s*type:\s*(?P<expr>.+?)\s*$")
_SKIP_AFTER_COLON = {tokenize.NEWLINE, tokenize.NL, tokenize.INDENT}


@dataclass(frozen=True)
class TypeComments:
    """The type comments of one function.

    Attributes:
        arguments: the function form's argument types in order (``None`` when there is no
            function-form comment, or it is ``(...) -> R``), stars removed (``*str`` -> ``str``).
        per_argument: ``{parameter name: type expression}`` from the per-argument form.
    """

    arguments: list[str] | None = None
    per_argument: dict[str, str] = field(default_factory=dict)


def read_type_comments(fn: Callable[..., Any]) -> TypeComments:
    """Find the PEP 484 type comments of ``fn``; empty when there are none or no source.

    Args:
        fn: a plain (or ``functools.wraps``-decorated) function.
    """
    try:
        lines, _ = inspect.getsourcelines(fn)
    except (OSError, TypeError, tokenize.TokenError, SyntaxError, IndexError):
        # Built in, exec'd from a string, or the file changed since the import.
        return TypeComments()
    tokens = tokenize.generate_tokens(io.StringIO("".join(lines)).readline)
    try:
        return _scan(tokens)
    except (tokenize.TokenError, SyntaxError):  # pragma: no cover - inspect tokenized these lines already
        return TypeComments()


def _scan(tokens: Iterator[tokenize.TokenInfo]) -> TypeComments:
    for tok in tokens:
        if tok.type == tokenize.NAME and tok.string == "def":
            break
    else:
        return TypeComments()
    per_argument = _scan_parameters(tokens)
    _skip_to_body(tokens)
    # The function's type comment is among the comments right after the colon, before any
    # code or docstring; a type-ignore or other remark on the def line may come first.
    for tok in tokens:
        if tok.type in _SKIP_AFTER_COLON:
            continue
        if tok.type != tokenize.COMMENT:
            break
        arguments = _function_arguments(tok.string)
        if arguments is not None or _is_signature_comment(tok.string):
            return TypeComments(arguments, per_argument)
    return TypeComments(per_argument=per_argument)


def _is_signature_comment(comment: str) -> bool:
    """True for a function-form type comment, e.g. ``# type: (...) -> int``."""
    match = _TYPE_COMMENT.match(comment)
    return match is not None and _top_level_index(_strip_trailing_comment(match["expr"]), "->") >= 0


def _scan_parameters(tokens: Iterator[tokenize.TokenInfo]) -> dict[str, str]:
    """Walk the parameter list (consuming it), collecting per-argument comments."""
    found: dict[str, str] = {}
    depth = 0
    expecting_name = False
    current: str | None = None
    for tok in tokens:  # pragma: no branch - a def always closes its parameter list
        if tok.type == tokenize.OP:
            if tok.string in "([{":
                depth += 1
                expecting_name = depth == 1
            elif tok.string in ")]}":
                depth -= 1
                if depth == 0:
                    break
            elif depth == 1 and tok.string == ",":
                expecting_name = True
            elif depth == 1 and tok.string in ("=", ":"):
                expecting_name = False
        elif tok.type == tokenize.NAME and depth == 1 and expecting_name:
            current, expecting_name = tok.string, False
        elif tok.type == tokenize.COMMENT and current is not None:
            match = _TYPE_COMMENT.match(tok.string)
            if match and not match["expr"].startswith("ignore"):
                found[current] = _strip_trailing_comment(match["expr"])
    return found


def _skip_to_body(tokens: Iterator[tokenize.TokenInfo]) -> None:
    """Consume an optional ``-> annotation`` and the colon that opens the body."""
    depth = 0
    for tok in tokens:  # pragma: no branch - a def always reaches its colon
        if tok.type == tokenize.OP:
            if tok.string in "([{":
                depth += 1
            elif tok.string in ")]}":
                depth -= 1
            elif tok.string == ":" and depth == 0:
                return


def _function_arguments(comment: str) -> list[str] | None:
    match = _TYPE_COMMENT.match(comment)
    if not match:
        return None
    expr = _strip_trailing_comment(match["expr"])
    arrow = _top_level_index(expr, "->")
    if arrow < 0:
        return None
    inside = expr[:arrow].strip()
    if not (inside.startswith("(") and inside.endswith(")")):
        return None
    inside = inside[1:-1].strip()
    if inside in ("...", ""):
        return None if inside == "..." else []
    return [part.strip().lstrip("*").strip() for part in _split_top_level(inside)]


def _strip_trailing_comment(expr: str) -> str:
    """``(int) -> str  # noqa`` -> ``(int) -> str``."""
    hash_at = expr.find("#")
    return (expr[:hash_at] if hash_at >= 0 else expr).strip()


def _top_level_index(text: str, needle: str) -> int:
    depth = 0
    for index, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif depth == 0 and text.startswith(needle, index):
            return index
    return -1


def _split_top_level(text: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    start = 0
    for index, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return [part for part in parts if part.strip()]
