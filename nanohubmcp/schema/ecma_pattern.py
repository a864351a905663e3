"""A JSON Schema ``pattern`` read as ECMA-262 reads it, with Python's :mod:`re`.

JSON Schema says a ``pattern`` is an ECMA-262 regular expression (2020-12 Validation § 6.3.3, Core § 6.4):
what a client's validator (ajv, the TypeScript SDK) compiles, and what pydantic's own check (Rust ``regex``)
agrees with on anchors. jsonschema runs it with Python's ``re.search``, which reads most of it the same way but
not ``$``: in Python it also matches *before a final newline*, so ``^[a-z0-9_]+$`` admits ``"run_1\\n"`` —
the allow-list idiom for a run name or a file stem let a newline into a path or a command line (review r38 F9).

Chosen here, and why:

- :func:`ecma_search` runs the pattern with each ``$`` outside a character class read as ``\\Z`` (the end of
  the text, what ECMA-262 without the ``m`` flag means). The published pattern is left as written: clients
  read it right already; only our check was wrong. A pattern holding an inline flag (``(?m)``, Python-only;
  refused in a tool's schema) is run as written: its author meant Python's reading.
- :func:`python_only` names a construct Python reads and ECMA-262 refuses or reads otherwise (``\\Z``,
  ``\\A``, ``(?P<name>...)``, inline flags, possessive quantifiers, ``{,n}``, a ``]`` first in a class...),
  so a pattern a tool would publish, from a ``Field(pattern=...)`` or written by hand in a schema
  (:func:`check_patterns`), is refused at registration naming it and what to write instead, rather than sent to
  clients as a syntax error (``new RegExp("^\\\\w+\\\\Z", "u")``: ``Invalid escape``) or a different rule.
- The character classes as ECMA-262 defines them (§ 22.2.2.9), where Python's are Unicode-aware: ``\\d``,
  ``\\w``, ``\\b`` and their negations are ASCII (the pattern runs with ``re.ASCII``: ``^\\d+$`` refuses
  ``"١٢٣"``, ``^\\w+$`` refuses ``"é"``), and ``\\s``/``\\S`` are ECMA-262's white space (:data:`_ECMA_SPACE`:
  U+FEFF and the Unicode ``Zs`` spaces, not U+0085 nor U+001C to U+001F), written out as a class. jsonschema's own
  ``re.search`` read them as Python does, accepting what a client refuses. (pydantic's Rust check reads them as
  Unicode too; ours runs first, so the stricter reading holds.)
- ``.`` outside a class is ECMA-262's: any character but a line terminator (§ 22.2.2.7: ``\\n``, ``\\r``, U+2028,
  U+2029), where Python's stops at ``\\n`` alone; ``^.+$`` refuses ``"a\\rb"``, as a client's validator does.

The one reading holds wherever a schema's regular expression is run: a ``pattern`` (:mod:`.keywords`), a
``patternProperties`` key and the ``additionalProperties`` that depends on it (:mod:`.property_patterns`; not
``unevaluatedProperties``, jsonschema's own), a ``propertyNames`` pattern (a ``pattern`` on the key), a default's
check (:mod:`.default_check`). Each pattern is read and compiled once (:func:`regex_error` at registration; cached).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from nanohubmcp.errors import RegistrationError
from nanohubmcp.schema.paths import format_path

__all__ = ["check_patterns", "ecma_search", "python_only", "regex_error"]

_ESCAPES = {
    "\\A": "\\A (Python's start of text): write ^",
    "\\Z": "\\Z (Python's end of text): write $, which the check reads as the end of the text as ECMA-262 does",
    "\\z": "\\z: write $, which the check reads as the end of the text as ECMA-262 does",
    "\\a": "\\a (Python's bell): write \\x07",
    "\\N": "\\N{...} (a character by name): write the character itself",
    "\\U": "\\U........ (an 8-digit code point): write the character itself",
}
# Over the pattern with escapes and class members masked (same length, positions kept). Pattern texts that `re`
# compiles at their first use (a pattern given at registration): compiled here they cost every server's start
# ~1 M instructions, and most tools have no pattern.
_MASKED_RULES = [
    (r"\(\?P", "(?P...) (a Python named group or reference): use a plain group (...)"),
    (r"\(\?#", "(?#...) (a Python comment): leave it out"),
    (r"\(\?\(", "(?(...)...) (a conditional group): not in ECMA-262"),
    (r"\(\?>", "(?>...) (an atomic group): not in ECMA-262"),
    (r"\(\?[aiLmsux-]+[:)]", "an inline flag (?i)/(?i:...): write it into the pattern ([A-Za-z])"),
    (r"(?:[*+?]|\{\d*(?:,\d*)?\})\+", "a possessive quantifier (*+, ++, ?+, {n}+): not in ECMA-262"),
    (r"\{,\d*\}", "{,n} (Python's 0 to n): write {0,n}"),
]
_INLINE_FLAG = r"\(\?[aiLmsux-]+[:)]"
_ECMA_SPACE = "\\t\\n\\x0b\\x0c\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
"""ECMA-262's ``\\s`` as a class's members (§ 22.2.2.9: WhiteSpace, with U+FEFF and the Unicode ``Zs`` spaces, and
LineTerminator): Python's adds U+001C to U+001F and U+0085, and leaves U+FEFF out."""
_ECMA_DOT = "[^\\n\\r\\u2028\\u2029]"
"""ECMA-262's ``.`` without the ``s`` flag (§ 22.2.2.7): any character but a LineTerminator."""
_OUTSIDE = {"$": "\\Z", "\\s": f"[{_ECMA_SPACE}]", "\\S": f"[^{_ECMA_SPACE}]", ".": _ECMA_DOT}
"""Tokens outside a class read otherwise: ``$`` is the end of the text (not before a final newline), ``.`` stops at
every line terminator."""


def python_only(pattern: str) -> str | None:
    """The first construct of ``pattern`` (a Python ``re`` pattern) that ECMA-262 refuses or reads otherwise,
    said with what to write instead (``"\\\\Z (Python's end of text): write $, ..."``), or None.

    Not checked: what Python itself refuses (``re.compile`` does), identity escapes such as ``\\\\-`` outside a
    class (a literal in Python and in ECMA-262 without the ``u`` flag).
    """
    for token, kind in _tokens(pattern):
        if kind == "first ]":
            return "a ] first in a character class ([]...] or [^]...]): ECMA-262 reads [] as an empty class; write \\]"
        if token in _ESCAPES:
            return _ESCAPES[token]
    text = _masked(pattern)
    found = [(m.start(), said) for rule, said in _MASKED_RULES if (m := re.search(rule, text))]
    return min(found)[1] if found else None


def regex_error(pattern: str) -> str | None:
    """Why Python's ``re`` refuses ``pattern`` (``"unterminated character set at position 6"``), or None; a pattern
    it takes is then read as ECMA-262 and compiled once, for :func:`ecma_search` (at registration, not a call)."""
    try:
        _compiled(pattern)
    except re.error as exc:
        return str(exc)
    return None


def check_patterns(schema: object, label: str, what: str) -> None:
    """Refuse at registration a ``pattern`` (or ``patternProperties`` key) anywhere in ``schema`` that is not a
    regular expression: each call would fail on it (``"Internal error"``), as jsonschema compiles it then; or that
    uses syntax only Python reads (:func:`python_only`: ``\\Z``, ``(?i)``...), which a client's validator
    refuses or reads otherwise, as a ``Field(pattern=...)`` is refused. Each one left is read as ECMA-262 and
    compiled now (:func:`regex_error`), not at a call.

    Raises:
        RegistrationError: ``"tool 'element': invalid input schema: the pattern '^[A-Z][a-z?$' at
            schema.properties.symbol.pattern is not a regular expression: unterminated character set at position 6"``;
            ``"... the pattern '(?i)^[a-z]+$' at schema.properties.name.pattern uses an inline flag (?i)/(?i:...):
            write it into the pattern ([A-Za-z]) (JSON Schema patterns are ECMA-262 regular expressions, ...)"``.

    .. versionchanged:: 1.0
       A pattern with syntax only Python reads is refused (a hand-written one was published, and run Python's way).
    """
    for where, pattern in _patterns(schema, []):
        broken = regex_error(pattern)
        if broken is not None:
            raise RegistrationError(f"{label}: invalid {what}: the pattern {pattern!r} at "
                                    f"{format_path('schema', where)} is not a regular expression: {broken}")
        construct = python_only(pattern)
        if construct is not None:  # as a Field(pattern=...) is refused (schema/constraints): one rule for both
            raise RegistrationError(f"{label}: invalid {what}: the pattern {pattern!r} at "
                                    f"{format_path('schema', where)} uses {construct} (JSON Schema patterns are "
                                    "ECMA-262 regular expressions, which clients compile)")


def _patterns(node: object, path: list[str | int]) -> Iterator[tuple[list[str | int], str]]:
    """``(path, pattern)`` for each ``pattern`` value and ``patternProperties`` key of the subschemas of ``node``."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("const", "enum", "default", "examples"):  # data, not subschemas
                continue
            if key == "pattern" and isinstance(value, str):
                yield [*path, key], value
            elif key == "patternProperties" and isinstance(value, dict):
                yield from (([*path, key, name], name) for name in value if isinstance(name, str))
            if key != "properties" or not isinstance(value, dict):
                yield from _patterns(value, [*path, key])
            else:  # a parameter named "pattern" is a subschema, not a pattern
                for name, sub in value.items():
                    yield from _patterns(sub, [*path, key, name])
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from _patterns(item, [*path, index])


def ecma_search(pattern: str, text: str) -> bool:
    """Whether ``pattern`` matches somewhere in ``text`` as ECMA-262 reads it (the module text: ``$`` outside a
    class only at the very end, ``.`` at no line terminator, ``\\d``/``\\w``/``\\b`` ASCII, ``\\s`` ECMA-262's
    white space). ``pattern`` is a Python ``re`` pattern (one Python refuses raises :class:`re.error`, as
    ``re.search`` does); it is read and compiled once (at registration, by :func:`regex_error`; kept for 1,024
    patterns)."""
    return _compiled(pattern).search(text) is not None


@functools.lru_cache(maxsize=1024)
def _compiled(pattern: str) -> re.Pattern[str]:
    if re.search(_INLINE_FLAG, _masked(pattern)):  # its author meant Python's reading
        return re.compile(pattern)
    try:
        return re.compile(_ecma_read(pattern), re.ASCII)
    except re.error:  # not expected (only anchors, dots and classes are rewritten); the pattern as written then
        return re.compile(pattern)


def _ecma_read(pattern: str) -> str:
    """``pattern`` as Python's ``re`` (with ``re.ASCII``: ``\\d``, ``\\w``, ``\\b`` and their negations
    ASCII, as ECMA-262's) reads what ECMA-262 means: each ``$`` outside a class as ``\\Z``, each ``.`` outside
    one as :data:`_ECMA_DOT`, each ``\\s`` and ``\\S`` as ECMA-262's white space (:data:`_ECMA_SPACE`)."""
    if "$" not in pattern and "." not in pattern and "\\s" not in pattern and "\\S" not in pattern:
        return pattern
    read: list[str] = []
    members: list[str] = []  # the open class's tokens, from its "["
    for token, kind in _tokens(pattern):
        if kind == "out":
            read.append(_OUTSIDE.get(token, token))
        elif members and token == "]" and kind == "class":
            read.append(_ecma_class([*members, token]))
            members = []
        else:
            members.append(token)
    read.extend(members)  # (an unclosed class: re refuses it as written)
    return "".join(read)


def _ecma_class(tokens: list[str]) -> str:
    """A character class (its tokens, ``[`` to ``]``) with ``\\s`` as ECMA-262's white space; one holding
    ``\\S`` as a group saying the same (Python has no class inside a class)."""
    negated = tokens[1] == "^"
    start = 2 if negated else 1
    inner = tokens[start:-1]
    if "\\S" not in inner:
        return "".join(_ECMA_SPACE if token == "\\s" else token for token in tokens)
    rest = "".join(_ECMA_SPACE if token == "\\s" else token for token in inner if token != "\\S")
    if negated:  # neither a rest member nor a non-space: a space that is no rest member
        return f"(?:(?![{rest}])[{_ECMA_SPACE}])" if rest else f"[{_ECMA_SPACE}]"
    return f"(?:[{rest}]|[^{_ECMA_SPACE}])" if rest else f"[^{_ECMA_SPACE}]"


def _masked(pattern: str) -> str:
    """``pattern`` with each escape and each class's brackets and members as ``#`` (same length): what is
    left is its syntax outside classes."""
    return "".join(
        token if kind == "out" and len(token) == 1 else "#" * len(token) for token, kind in _tokens(pattern))


def _tokens(pattern: str) -> Iterator[tuple[str, str]]:
    """``(token, kind)`` for each token of ``pattern`` as Python's ``re`` reads it: a token is an
    escape (``\\d``, two characters) or one character; ``kind`` is ``"out"`` outside a character class,
    ``"class"`` for a class's brackets and members, ``"first ]"`` for a ``]`` that opens a class's members
    (a literal to Python)."""
    i, members = 0, -1  # members: where the open class's members start; -1 outside one
    while i < len(pattern):
        token = pattern[i:i + 2] if pattern[i] == "\\" else pattern[i]
        kind = "class"
        if members < 0:
            if token == "[":
                members = i + 1
            else:
                kind = "out"
        elif token == "^" and i == members and pattern[i - 1] == "[":
            members = i + 1
        elif token == "]":
            if i == members:
                kind = "first ]"
            else:
                members = -1
        yield token, kind
        i += len(token)
