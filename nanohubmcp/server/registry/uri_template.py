"""Matching URIs against RFC 6570 URI templates (the reverse of expansion).

A resource template names a family of resources; a ``resources/read`` URI must be matched
back to the template and its variable values. Supported, per RFC 6570 § 3.2:

- ``{name}`` one path segment (no ``/``); ``{a,b}`` comma-separated values;
- ``{name*}`` any text, ``/`` included (multi-segment: ``file:///{path*}`` matches
  ``file:///a/b/c`` with ``path="a/b/c"``);
- ``{+name}`` reserved expansion: any text up to ``?`` or ``#``, ``/`` included;
  ``{#name}`` a fragment;
- ``{/name}`` path segments, ``{/name*}`` several of them; ``{.name}`` a label; ``{;name}``
  path parameters;
- ``{?a,b}`` a query and ``{&c}`` its continuation: parameters in any order, each optional
  (a missing one is not passed, so the function's default applies), others ignored.

Values are percent-decoded. A prefix modifier (``{name:3}``) matches like the plain variable.
The template string itself is never rewritten: ``resources/templates/list`` shows it as given.

Source: RFC 6570 §§ 2-3 (syntax and expansion); MCP 2025-11-25, Server § Resources § Resource
Templates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, unquote

_EXPRESSION = re.compile(r"\{([^{}]*)\}")
_VARSPEC = re.compile(r"([A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*")
_OPERATORS = ("+", "#", ".", "/", ";", "?", "&")


class TemplateError(ValueError):
    """A template that is not valid RFC 6570 (the message says where)."""


@dataclass(frozen=True)
class Variable:
    """One variable of a template: its name, operator and whether it is exploded (``*``)."""

    name: str
    operator: str
    explode: bool


@dataclass(frozen=True)
class UriTemplate:
    """A compiled template: ``match(uri)`` gives the variable values, or None.

    Attributes:
        template: the template as written.
        variables: every variable, in order.
        literal_length: characters outside expressions (more means more specific).
        greedy: variables that may span ``/`` (``{+x}``, ``{x*}``, ``{/x*}``, ``{#x}``).
    """

    template: str
    variables: tuple[Variable, ...]
    literal_length: int
    greedy: int
    _pattern: re.Pattern[str]
    _query: tuple[str, ...]

    @property
    def names(self) -> tuple[str, ...]:
        """The variable names, in order."""
        return tuple(v.name for v in self.variables)

    def specificity(self) -> tuple[int, int, int]:
        """Sort key among templates matching one URI: most literal text, then fewest greedy
        variables, then fewest variables, wins."""
        return (self.literal_length, -self.greedy, -len(self.variables))

    def match(self, uri: str) -> dict[str, str] | None:
        """The variable values when ``uri`` matches (percent-decoded), else None."""
        m = self._pattern.fullmatch(uri)
        if m is None:
            return None
        values: dict[str, str] = {}
        for group, raw in m.groupdict().items():
            if raw is None or group == "_query":
                continue
            values[group[2:]] = _decode(group, raw)
        if self._query:
            query = m.group("_query") or ""
            for key, value in parse_qsl(query, keep_blank_values=True):
                if key in self._query and key not in values:
                    values[key] = value
        return values


def _decode(group: str, raw: str) -> str:
    kind = group[0]
    if kind == "p":  # {/x*}: "/a/b" -> "a/b"
        return "/".join(unquote(part) for part in raw.split("/")[1:])
    return unquote(raw)


def compile_template(template: str) -> UriTemplate:
    """Compile ``template``.

    Raises:
        TemplateError: unbalanced braces, an empty or malformed expression, an unknown
            operator, or a variable named twice.
    """
    pattern: list[str] = []
    variables: list[Variable] = []
    query: list[str] = []
    literal = greedy = 0
    pos = 0
    for m in _EXPRESSION.finditer(template):
        text = template[pos:m.start()]
        _check_literal(template, text)
        pattern.append(re.escape(text))
        literal += len(text)
        pos = m.end()
        body = m.group(1)
        operator = body[:1] if body[:1] in _OPERATORS else ""
        specs = body[len(operator):].split(",")
        parsed = [_varspec(template, spec, operator) for spec in specs]
        for var in parsed:
            if any(v.name == var.name for v in variables):
                raise TemplateError(f"resource template '{template}': variable '{var.name}' appears twice")
            variables.append(var)
            greedy += var.explode or operator in ("+", "#")
        if operator in ("?", "&"):
            query += [v.name for v in parsed]
            if len(query) == len(parsed):  # the first query expression takes the whole query
                lead = r"\?" if operator == "?" else "&"
                pattern.append(f"(?:{lead}(?P<_query>[^#]*))?")
            continue
        pattern.append(_expression(operator, parsed))
    rest = template[pos:]
    _check_literal(template, rest)
    pattern.append(re.escape(rest))
    literal += len(rest)
    if not variables:
        raise TemplateError(f"resource template '{template}' has no {{variables}}")
    return UriTemplate(template, tuple(variables), literal, greedy, re.compile("".join(pattern)), tuple(query))


def _check_literal(template: str, text: str) -> None:
    if "{" in text or "}" in text:
        raise TemplateError(f"resource template '{template}': unbalanced braces")


def _varspec(template: str, spec: str, operator: str) -> Variable:
    explode = spec.endswith("*")
    name = spec[:-1] if explode else spec
    if ":" in name:
        name, _, length = name.partition(":")
        if not length.isdigit() or not 0 < int(length) < 10000:
            raise TemplateError(f"resource template '{template}': bad prefix length in '{{{operator}{spec}}}'")
    if not _VARSPEC.fullmatch(name) or not name.isidentifier():
        raise TemplateError(
            f"resource template '{template}': '{{{operator}{spec}}}' needs a variable name that is a Python "
            "identifier (RFC 6570 operators + # . / ; ? & and the * and :N modifiers are understood)")
    return Variable(name, operator, explode)


def _expression(operator: str, variables: list[Variable]) -> str:
    """The regex of one non-query expression (groups: ``s_name`` plain, ``p_name`` segments)."""
    if operator == "" and len(variables) == 1:
        var = variables[0]
        return f"(?P<s_{var.name}>.+)" if var.explode else f"(?P<s_{var.name}>[^/?#]+)"
    if operator == "":
        return ",".join(f"(?P<s_{v.name}>[^/?#,]*)" for v in variables)
    if operator == "+":
        return ",".join(f"(?P<s_{v.name}>[^?#]*)" if len(variables) > 1 else f"(?P<s_{v.name}>[^?#]+)"
                        for v in variables)
    if operator == "#":
        return "#" + ",".join(f"(?P<s_{v.name}>.*)" for v in variables)
    if operator == "/":
        return "".join(f"(?P<p_{v.name}>(?:/[^/?#]*)+)" if v.explode else f"/(?P<s_{v.name}>[^/?#]*)"
                       for v in variables)
    if operator == ".":
        return "".join(f"\\.(?P<s_{v.name}>[^/?#.]*)" for v in variables)
    # ";": path-style parameters, ";name=value" (or ";name" when empty)
    return "".join(f";{re.escape(v.name)}(?:=(?P<s_{v.name}>[^/?#;]*))?" for v in variables)
