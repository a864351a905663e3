"""Docstrings -> a component description and per-parameter descriptions.

Parameter texts come from :mod:`docstring_parser` (Google, NumPy and reST styles, detected
per docstring). The description is the cleaned docstring with its parameter sections cut
out (the schema already carries them); every other section (Returns, Raises, Examples, …)
stays, because it helps a model use the tool.
"""

from __future__ import annotations

import inspect
import logging
import re

from ..protocol.tuple_records import TupleRecord

log = logging.getLogger(__name__)

_PARAM_WORDS = (
    r"(?:Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Kwargs|Other Parameters|Attributes)"
)
# Patterns, not compiled here: ``re`` compiles each at its first use (~1 M instructions apiece) and
# keeps it; a docstring without a colon or dashes never needs them (bench/startup.md).
_GOOGLE_HEADER = rf"^(?P<indent>\s*){_PARAM_WORDS}:\s*$"
_NUMPY_HEADER = rf"^\s*{_PARAM_WORDS}\s*$"
_NUMPY_RULE = r"^\s*-{3,}\s*$"
_REST_FIELD = r"^\s*:(?:param|parameter|arg|argument|key|keyword|kwarg|type|ivar|var|vartype)\b[^:]*:"


class DocInfo(TupleRecord, tuple["str | None", "dict[str, str]"]):
    """What a docstring says about a callable, ``(description, params)`` (a tuple written out: a frozen
    dataclass cost ~3 M instructions to create at import, a ``NamedTuple`` ~0.6 M).

    Attributes:
        description: the cleaned docstring without parameter sections; ``None`` when empty.
        params: ``{parameter name: description}`` (``*``/``**`` prefixes removed).
    """

    __slots__ = ()
    _fields = ("description", "params")

    def __new__(cls, description: str | None, params: dict[str, str]) -> DocInfo:
        return tuple.__new__(cls, (description, params))

    @property
    def description(self) -> str | None:
        return self[0]

    @property
    def params(self) -> dict[str, str]:
        return self[1]


def read_docstring(doc: str | None) -> DocInfo:
    """Split a raw ``__doc__`` into a description and parameter descriptions."""
    if not doc or not doc.strip():
        return DocInfo(None, {})
    text = inspect.cleandoc(doc)
    return DocInfo(_without_parameter_sections(text) or None, _parameter_texts(text))


def _parameter_texts(text: str) -> dict[str, str]:
    if not _may_describe_parameters(text):
        return {}
    import docstring_parser  # loaded only for docstrings that can carry parameter sections

    try:
        parsed = docstring_parser.parse(text)
    except docstring_parser.ParseError as exc:  # pragma: no cover - auto style absorbs per-style failures
        log.debug("docstring not parsed: %s", exc)
        return {}
    found: dict[str, str] = {}
    for param in parsed.params:
        if not param.description:
            continue
        # NumPy allows "x, y : float" for several parameters sharing one entry.
        for name in param.arg_name.split(","):
            found.setdefault(name.strip().lstrip("*"), param.description.strip())
    return found


def _may_describe_parameters(text: str) -> bool:
    """Whether ``text`` has what every parameter style needs: a Google ``Args:`` header or reST
    ``:param`` field (a colon), an Epydoc ``@param`` or a NumPy section rule (dashes).
    Most tool docstrings are a sentence or two and need no parser."""
    return ":" in text or "@" in text or "--" in text


def _without_parameter_sections(text: str) -> str:
    lines = text.splitlines()
    if not _may_describe_parameters(text):  # no section header, field or rule: every line is kept
        kept_all = "\n".join(lines)
        return re.sub(r"\n{3,}", "\n\n", kept_all).strip() if "\n\n\n" in kept_all else kept_all.strip()
    kept: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        google = re.match(_GOOGLE_HEADER, line)
        if google:
            index = _skip_indented(lines, index + 1, len(google["indent"]))
        elif re.match(_NUMPY_HEADER, line) and index + 1 < len(lines) and re.match(_NUMPY_RULE, lines[index + 1]):
            index = _skip_numpy_section(lines, index + 2)
        elif re.match(_REST_FIELD, line):
            index = _skip_indented(lines, index + 1, _indent(line), stop_at_blank=True)
        else:
            kept.append(line)
            index += 1
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip()


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _skip_indented(lines: list[str], index: int, indent: int, *, stop_at_blank: bool = False) -> int:
    """Index of the first line after a block indented deeper than ``indent``."""
    while index < len(lines):
        line = lines[index]
        if not line.strip():
            if stop_at_blank:
                return index
        elif _indent(line) <= indent:
            return index
        index += 1
    return index


def _skip_numpy_section(lines: list[str], index: int) -> int:
    """Index of the next NumPy section header (a line underlined with dashes)."""
    while index < len(lines):
        if index + 1 < len(lines) and lines[index].strip() and re.match(_NUMPY_RULE, lines[index + 1]):
            return index
        index += 1
    return index
