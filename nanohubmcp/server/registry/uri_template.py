"""Matching URIs against RFC 6570 URI templates (the reverse of expansion).

A resource template names a family of resources; a ``resources/read`` URI must be matched
back to the template and its variable values. Supported, per RFC 6570 § 3.2:

- ``{name}`` one path segment (no ``/``); ``{a,b}`` comma-separated values;
- ``{name*}`` any text, ``/`` included (multi-segment: ``file:///{path*}`` matches
  ``file:///a/b/c`` with ``path="a/b/c"``);
- ``{+name}`` reserved expansion: any text up to ``?`` or ``#``, ``/`` included;
  ``{#name}`` a fragment;
- ``{/name}`` a path segment, ``{/name*}`` any number of them, none included (``x://a{/s*}`` matches
  ``x://a`` with ``s=""``, as RFC 6570 expands an empty list to nothing); ``{.name}`` a label;
  ``{;name}`` path parameters;
- ``{?a,b}`` a query and ``{&c}`` its continuation: parameters in any order, each optional
  (a missing one is not passed, so the function's default applies). A parameter the template does
  not name makes the URI not match it (:meth:`UriTemplate.unknown_query` names it, for the "not
  found" message); a parameter given twice matches with the list of its values, which the caller
  refuses (-32602 naming it).

Values are percent-decoded. An exploded or reserved value (``{path*}``, ``{+path}``, ``{/segs*}``) is
one string, its segments joined by ``/`` (``x://a/b/c`` gives ``"a/b/c"`` for ``x://{path*}`` and
``x://a{/s*}`` gives ``"b/c"`` for ``x://a/b/c``), never a list. A prefix modifier (``{name:3}``) matches
like the plain variable.

The scheme (``file`` in ``file://...``, RFC 3986 § 3.1) is matched without regard to ASCII case:
``FILE://x`` matches ``file://{name}``; percent-escapes are compared as RFC 3986 § 6.2.2 compares them
(``%7E`` is ``~``, ``%2f`` is ``%2F``: ``data://%6Cab`` is not ``data://{name}``'s when ``data://lab`` is a
fixed resource, and a literal ``%2F`` stays an escape); the rest of the URI is matched exactly. The
template's scheme is compiled in lower case, its literal escapes in that form, and :meth:`UriTemplate.match`
takes a URI in that form (:func:`~nanohubmcp.protocol.uris.comparison_form`, which the registry applies once
per read, not once per template; a variable in the scheme, ``{s}://x``, so gets it in lower case).

A one-segment variable (``{name}``, ``{a,b}``, ``{/name}``, ``{.name}``, ``{;name}``: those whose
text stops at ``/``) stays one segment after decoding: a URI whose value would hold ``/``, ``\\``
or NUL once decoded (``..%2Fetc``, ``%5C``, ``%00``), or be ``.`` or ``..`` (``%2E%2E`` too), does
not match that template (so it is "resource not found", unless another template takes it; the message
then names the variable and what it cannot hold, :meth:`UriTemplate.split_segment`). The
value is refused rather than passed still encoded: every value arrives decoded, and a function that
joins a ``{name}`` to a directory stays in it. Multi-segment values (``{+path}``, ``{path*}``,
``{/path*}``, ``{#x}``) and query values (``{?q}``) may hold any of these: a function that opens
files with one must keep the path inside its directory itself.

The template string itself is never rewritten: ``resources/templates/list`` shows it as given.

Matching takes time linear in the URI's length (a client's URI must never stall the server). So:

- two variables with nothing between them (``{a}{b}``, ``{a}{+b}``) are refused at registration:
  where one ends and the next begins cannot be told. An operator's own character separates
  (``{x}{/y}``, ``{name}{.ext}``, ``{path}{?q}`` are fine), as does literal text (``{a}-{b}``);
- where several splits fit, the earlier variable takes as much as it can, and a later variable
  never holds the literal text just before it when an earlier one could: in ``{name}.{ext}``,
  ``ext`` is what follows the last ``.``; in ``{a}-{b}-{c}`` neither ``b`` nor ``c`` holds ``-``;
- so an exploded path variable right after a variable that may hold ``/`` (``{+a}{/b*}``,
  ``{/a*}{/b*}``) is refused too: which segments are whose cannot be told.

Source: RFC 6570 §§ 2-3 (syntax and expansion); MCP 2025-11-25, Server § Resources § Resource
Templates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TypeAlias
from urllib.parse import unquote

from ...protocol.uris import fold_scheme, normal_escapes

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


Values: TypeAlias = dict[str, str | list[str]]
"""What :meth:`UriTemplate.match` gives: each variable's decoded text; a query parameter given more than
once, the list of its values (in the URI's order)."""


@dataclass(frozen=True)
class UriTemplate:
    """A compiled template: ``match(uri)`` gives the variable values, or None.

    Attributes:
        template: the template as written.
        variables: every variable, in order.
        literal_length: characters outside expressions (more means more specific).
        greedy: variables that may span ``/`` (``{+x}``, ``{x*}``, ``{/x*}``, ``{#x}``).
        rank: :meth:`specificity`, computed once.
        query_names: the variables of its ``{?...}`` and ``{&...}`` expressions, in order.
    """

    template: str
    variables: tuple[Variable, ...]
    literal_length: int
    greedy: int
    rank: tuple[int, int, int]
    query_names: tuple[str, ...]
    _pattern: re.Pattern[str]
    _plan: tuple[tuple[str, str], ...]  # per regex group, in order: (variable name, kind: "s" any text,
    # "1" one segment (see one_segment), "p" segments "/a/b", "q" the query)

    @property
    def names(self) -> tuple[str, ...]:
        """The variable names, in order."""
        return tuple(v.name for v in self.variables)

    def specificity(self) -> tuple[int, int, int]:
        """Sort key among templates matching one URI: most literal text, then fewest greedy
        variables, then fewest variables, wins."""
        return self.rank

    def match(self, uri: str) -> Values | None:
        """The variable values when ``uri`` matches (percent-decoded), else None: also None when a
        one-segment variable's decoded value is not one segment (see :func:`one_segment`) or the
        query holds a parameter the template does not name. A query parameter given more than
        once gives the list of its values (the caller refuses it). ``uri``'s scheme is taken in
        lower case and its escapes normalised: pass it through
        :func:`~nanohubmcp.protocol.uris.comparison_form` first."""
        m = self._pattern.fullmatch(uri)
        if m is None:
            return None
        values: Values = {}
        for (name, kind), raw in zip(self._plan, m.groups(), strict=True):
            if raw is None:  # an optional part ({;x} without "=", no query) is not there
                continue
            if kind == "q":
                for key, text in query_pairs(raw):
                    if key not in self.query_names:
                        return None
                    had = values.get(key)
                    if had is None:
                        values[key] = text
                    elif isinstance(had, list):
                        had.append(text)
                    else:
                        values[key] = [had, text]
                continue
            value = unquote(raw[1:]) if kind == "p" else unquote(raw)  # {/x*}: "/a/b" -> "a/b"
            if kind == "1" and not one_segment(value):
                return None
            values[name] = value
        return values

    def split_segment(self, uri: str) -> tuple[str, str] | None:
        """``(variable, decoded value)`` of the first one-segment variable whose value is not one segment
        (:func:`one_segment`) when the rest of ``uri`` matches this template, else None (for the message
        of a URI that matches no template: ``q://search/a%2Fb`` against ``q://search/{term}``)."""
        m = self._pattern.fullmatch(uri)
        if m is None:
            return None
        for (name, kind), raw in zip(self._plan, m.groups(), strict=True):
            if kind == "1" and raw is not None and not one_segment(value := unquote(raw)):
                return name, value
        return None

    def unknown_query(self, uri: str) -> list[str]:
        """The query parameters of ``uri`` this template does not name, when the rest of ``uri``
        matches it; else ``[]`` (for the message of a URI that matches no template)."""
        m = self._pattern.fullmatch(uri) if self.query_names else None
        query = m.group("_query") if m is not None else None
        if not query:
            return []
        return list(dict.fromkeys(key for key, _ in query_pairs(query) if key not in self.query_names))


def query_pairs(query: str) -> list[tuple[str, str]]:
    """The ``(name, value)`` pairs of a query (the text after ``?``), decoded as
    ``urllib.parse.parse_qsl(query, keep_blank_values=True)`` decodes them (``+`` is a space, ``a`` alone
    is ``("a", "")``, empty fields are skipped), in a third less time: it runs on every read of a
    query template."""
    pairs = []
    for field in query.split("&"):
        if field:
            key, _, text = field.partition("=")
            pairs.append((unquote(key.replace("+", " ")), unquote(text.replace("+", " "))))
    return pairs


def one_segment(value: str) -> bool:
    """Whether a decoded value is one path segment: no ``/``, ``\\`` or NUL, and not ``.`` or ``..``
    (so joined to a directory it names something in that directory)."""
    return not ("/" in value or "\\" in value or "\0" in value or value in (".", ".."))


def compile_template(template: str) -> UriTemplate:
    """Compile ``template``.

    Raises:
        TemplateError: unbalanced braces, an empty or malformed expression, an unknown
            operator, a variable named twice, two variables with no literal text between them
            (``{a}{b}``), or an exploded path variable after one that may hold ``/``
            (``{+a}{/b*}``): such templates split a URI more than one way.
    """
    builder = _Builder(template)
    variables: list[Variable] = []
    query: list[str] = []
    literal = greedy = 0
    pos = 0
    for m in _EXPRESSION.finditer(template):
        text = template[pos:m.start()]
        _check_literal(template, text)
        builder.literal(normal_escapes(fold_scheme(text) if not pos else text))  # as the URI is (comparison_form)
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
                builder.part(m.group(0), "_query", "#", empty=True, optional=operator)
            continue
        _expression(builder, m.group(0), operator, parsed)
    rest = template[pos:]
    _check_literal(template, rest)
    builder.literal(normal_escapes(rest))
    literal += len(rest)
    if not variables:
        raise TemplateError(f"resource template '{template}' has no {{variables}}")
    pattern = re.compile(builder.pattern())
    groups = sorted(pattern.groupindex, key=pattern.groupindex.__getitem__)  # every group is named: m.groups()
    plan = tuple(("", "q") if group == "_query" else (group[2:], "1" if group in builder.segments else group[0])
                 for group in groups)
    return UriTemplate(template, tuple(variables), literal, greedy, (literal, -greedy, -len(variables)),
                       tuple(query), pattern, plan)


def _check_literal(template: str, text: str) -> None:
    if "{" in text or "}" in text:
        raise TemplateError(f"resource template '{template}': unbalanced braces")


def _varspec(template: str, spec: str, operator: str) -> Variable:
    explode = spec.endswith("*")
    name = spec[:-1] if explode else spec
    if ":" in name:
        name, _, length = name.partition(":")
        if not (length.isascii() and length.isdigit() and len(length) <= 4 and int(length) > 0):  # 1 to 9999
            raise TemplateError(f"resource template '{template}': bad prefix length in '{{{operator}{spec}}}'")
    if not _VARSPEC.fullmatch(name) or not name.isidentifier():
        raise TemplateError(
            f"resource template '{template}': '{{{operator}{spec}}}' needs a variable name that is a Python "
            "identifier (RFC 6570 operators + # . / ; ? & and the * and :N modifiers are understood)")
    return Variable(name, operator, explode)


def _expression(builder: _Builder, expression: str, operator: str, variables: list[Variable]) -> None:
    """Add one non-query expression (groups: ``s_name`` plain, ``p_name`` segments)."""
    for i, var in enumerate(variables):
        group = f"s_{var.name}"
        if operator in ("", "+", "#"):
            if i:
                builder.literal(",")
            elif operator == "#":
                builder.literal("#")
            if operator == "#":
                builder.part(expression, group, "\n", empty=True)
            elif len(variables) > 1:
                builder.part(expression, group, "/?#," if operator == "" else "?#", empty=True)
            elif operator == "" and var.explode:
                builder.part(expression, group, "\n", empty=False)
            else:
                builder.part(expression, group, "/?#" if operator == "" else "?#", empty=False)
        elif operator == "/" and var.explode:
            builder.part(expression, f"p_{var.name}", "?#", empty=True, segments=True)  # none at all: ""
        elif operator in ("/", "."):
            builder.literal(operator)
            builder.part(expression, group, "/?#" if operator == "/" else "/?#.", empty=True)
        else:  # ";": path-style parameters, ";name=value" (or ";name" when empty)
            builder.literal(f";{var.name}")
            builder.part(expression, group, "/?#;", empty=True, optional="=")


@dataclass(frozen=True)
class _Part:
    expression: str  # as written, for messages
    excluded: str  # characters the value never holds


def _escape(chars: str) -> str:
    """``chars`` escaped for a character class (only what a class needs)."""
    return "".join("\\" + c if c in "\\]^-[" else "\\n" if c == "\n" else c for c in chars)


class _Builder:
    """The regex of a template, built so that matching takes time linear in the URI.

    A backtracking matcher is slow when two variables can trade characters: in ``{a}-{b}-{c}``
    each of ``a`` and ``b`` may end at any ``-``, and a URI that almost matches makes it try every
    combination (polynomial in the URI's length, one power per variable). So each variable after
    the first is kept from holding the literal text just before it when an earlier variable could
    hold that text: ``b`` and ``c`` hold no ``-``, the earlier variable takes as much as it can (as
    before), and each variable ends where only one place fits. Two variables with no literal text
    between them (``{a}{b}``) cannot be split that way and are refused.
    """

    def __init__(self, template: str) -> None:
        self.template = template
        self.regex: list[str] = []
        self.parts: list[_Part] = []
        self.pending = ""  # literal text since the last variable
        self.segments: list[str] = []  # groups whose text stops at "/": one segment, decoded too

    def literal(self, text: str) -> None:
        self.regex.append(re.escape(text))
        self.pending += text

    def part(self, expression: str, group: str, excluded: str, *, empty: bool,
             segments: bool = False, optional: str = "") -> None:
        """Add a variable's group: characters but ``excluded``, ``empty`` allowed or not; ``segments``
        is ``(/seg)*``; ``optional`` is the text that starts an optional ``(?:text value)?``."""
        lead = self.pending + (optional or ("/" if segments else ""))
        holds = [p for p in self.parts if lead and lead[0] not in p.excluded]
        if not lead and self.parts:
            raise TemplateError(
                f"resource template '{self.template}': '{self.parts[-1].expression}' and '{expression}' have "
                "nothing between them, so where one variable ends and the next begins is ambiguous: put a "
                "literal separator between the variables (e.g. '{a}-{b}' or '{a}/{b}')")
        ahead = ""  # a lookahead at every character: the value never holds `lead`
        if holds and segments and not self.pending:
            raise TemplateError(
                f"resource template '{self.template}': '{expression}' right after '{holds[-1].expression}', which "
                "may itself hold '/', is ambiguous (which segments belong to which cannot be told): use one "
                "variable for both, or put a literal separator between them")
        if holds and not segments and len(lead) == 1:
            excluded += lead if lead not in excluded else ""
        elif holds and (segments or lead[0] not in excluded):
            ahead = f"(?!{re.escape(lead)})"
        chars = f"[^{'/' if segments else ''}{_escape(excluded)}]"
        if ahead:
            chars = f"(?:{ahead}{chars})"
        body = f"(?:{ahead}/{chars}*)*" if segments else chars + ("*" if empty else "+")
        regex = f"(?P<{group}>{body})"
        if optional:
            regex = f"(?:{re.escape(optional)}{regex})?"
        self.regex.append(regex)
        self.parts.append(_Part(expression, excluded))
        if not segments and "/" in excluded:
            self.segments.append(group)
        self.pending = ""

    def pattern(self) -> str:
        """The regex, to be matched with ``fullmatch``."""
        return "".join(self.regex)
