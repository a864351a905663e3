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
from dataclasses import dataclass, field

log = logging.getLogger(__name__)

_PARAM_WORDS = (
    r"(?:Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Kwargs|Other Parameters|Attributes)"
)
_GOOGLE_HEADER = re.compile(rf"^(?P<indent>\s*){_PARAM_WORDS}:\s*$")
_NUMPY_HEADER = re.compile(rf"^\s*{_PARAM_WORDS}\s*$")
_NUMPY_RULE = re.compile(r"^\s*-{3,}\s*$")
_REST_FIELD = re.compile(
    r"^\s*:(?:param|parameter|arg|argument|key|keyword|kwarg|type|ivar|var|vartype)\b[^:]*:"
)


@dataclass(frozen=True)
class DocInfo:
    """What a docstring says about a callable.

    Attributes:
        description: the cleaned docstring without parameter sections; ``None`` when empty.
        params: ``{parameter name: description}`` (``*``/``**`` prefixes removed).
    """

    description: str | None = None
    params: dict[str, str] = field(default_factory=dict)


def read_docstring(doc: str | None) -> DocInfo:
    """Split a raw ``__doc__`` into a description and parameter descriptions."""
    if not doc or not doc.strip():
        return DocInfo()
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
    kept: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        google = _GOOGLE_HEADER.match(line)
        if google:
            index = _skip_indented(lines, index + 1, len(google["indent"]))
        elif _NUMPY_HEADER.match(line) and index + 1 < len(lines) and _NUMPY_RULE.match(lines[index + 1]):
            index = _skip_numpy_section(lines, index + 2)
        elif _REST_FIELD.match(line):
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
        if index + 1 < len(lines) and lines[index].strip() and _NUMPY_RULE.match(lines[index + 1]):
            return index
        index += 1
    return index
