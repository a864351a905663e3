"""Tool parameters mirrored into HTTP headers (``x-mcp-header`` → ``Mcp-Param-<Name>``).

A tool may mark parameters whose values clients copy into ``Mcp-Param-<Name>`` headers, so
gateways can route on them without reading the body. At registration
:func:`annotate`/:func:`header_marks` check the marks (a token of RFC 9110 ``tchar``s,
case-insensitively unique, on a string/integer/boolean property reached through
``properties`` only). On each 2026-07-28 ``tools/call`` :func:`check_param_headers` holds the
headers to the body: a value present in the arguments needs its header, equal after decoding
(``=?base64?...?=`` is Base64 of UTF-8; integers compare as numbers); anything else is
-32020 ``HeaderMismatch``. :func:`decode_header_value` also decodes ``Mcp-Name``.

Source: MCP 2026-07-28, Basic § Transports § Streamable HTTP (Custom Headers from Tool
Parameters, Value Encoding, Server Validation); RFC 9110 § 5.1, § 5.5.
"""

from __future__ import annotations

import base64
import binascii
import copy
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...errors import HeaderMismatch, RegistrationError

if TYPE_CHECKING:
    from ..registry.components import Tool

ANNOTATION = "x-mcp-header"
MARKS = "x_mcp_headers"
"""``Tool.extra`` key of the tool's marks."""
NAME_FIELDS = {
    "tools/call": "name",
    "prompts/get": "name",
    "resources/read": "uri",
    "tasks/get": "taskId",
    "tasks/update": "taskId",
    "tasks/cancel": "taskId",
}
"""Methods whose ``Mcp-Name`` header mirrors a params field (SEP-2243; tasks: SEP-2663)."""
PARAM_PREFIX = "Mcp-Param-"
TOKEN = r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$"  # a pattern: compiled by ``re`` at the first header annotation, not at start
_ALLOWED_TYPES = ("string", "integer", "boolean")
_SAFE_INTEGER = 2**53 - 1
_FIELD_VALUE = r"^[\t\x20-\x7e]*\Z"  # (compiled by ``re`` at its first use: a mirrored header)
_B64_PREFIX, _B64_SUFFIX = "=?base64?", "?="


def _primitive(schema: Mapping[str, Any]) -> str | None:
    kind = schema.get("type")
    kinds = [kind] if isinstance(kind, str) else list(kind) if isinstance(kind, list) else []
    kinds = [k for k in kinds if k != "null"]
    return kinds[0] if len(kinds) == 1 and kinds[0] in _ALLOWED_TYPES else None


def header_marks(name: str, schema: Mapping[str, Any]) -> list[tuple[tuple[str, ...], str, str]]:
    """Every ``x-mcp-header`` of a tool's input schema: ``(property path, token, type)``.

    Raises:
        RegistrationError: a mark on a non-primitive (or ``number``) property, under an array,
            a composition, ``$ref`` or ``if``, a token that is not an RFC 9110 token, or two
            tokens equal ignoring case.
    """
    found: list[tuple[tuple[str, ...], str, str]] = []

    def visit(node: object, path: tuple[str, ...], reachable: bool) -> None:
        if isinstance(node, list):
            for item in node:
                visit(item, path, False)
            return
        if not isinstance(node, Mapping):
            return
        if ANNOTATION in node:
            where = "/".join(path) or "(root)"
            token = node[ANNOTATION]
            if not reachable or not path:
                raise RegistrationError(
                    f"tool '{name}': {ANNOTATION} on {where} is not reachable from the input schema through "
                    "'properties' alone (no items, anyOf/oneOf/allOf, $ref, if)")
            if not isinstance(token, str) or not re.match(TOKEN, token):
                raise RegistrationError(
                    f"tool '{name}': {ANNOTATION} of '{where}' must be a non-empty header token "
                    f"(letters, digits, !#$%&'*+-.^_`|~), got {token!r}")
            kind = _primitive(node)
            if kind is None:
                raise RegistrationError(
                    f"tool '{name}': {ANNOTATION} parameter '{where}' must be a string, integer or boolean "
                    "(not number, object or array)")
            found.append((path, token, kind))
        for key, child in node.items():
            if key == "properties" and isinstance(child, Mapping):
                for prop, sub in child.items():
                    visit(sub, (*path, prop), reachable)
            elif key != ANNOTATION:
                visit(child, path, False)

    visit(schema, (), True)
    seen: dict[str, str] = {}
    for path, token, _kind in found:
        if token.lower() in seen:
            raise RegistrationError(
                f"tool '{name}': {ANNOTATION} token {token!r} of '{'/'.join(path)}' repeats the one of "
                f"'{seen[token.lower()]}' (tokens are case-insensitive)")
        seen[token.lower()] = "/".join(path)
    return found


def annotate(name: str, schema: dict[str, Any], headers: Mapping[str, str]) -> dict[str, Any]:
    """A copy of ``schema`` with ``x-mcp-header`` set on the named parameters.

    Args:
        headers: ``{"region": "Region"}``; a dotted name reaches a nested object's property.
    Raises:
        RegistrationError: an unknown parameter, or a mark :func:`header_marks` refuses.
    """
    if not isinstance(headers, Mapping):
        raise RegistrationError(
            f"tool '{name}': x_mcp_headers must be a dict of parameter names to header names")
    marked = copy.deepcopy(schema)
    for param, token in headers.items():
        node: Any = marked
        for part in str(param).split("."):
            props = node.get("properties") if isinstance(node, dict) else None
            if not isinstance(props, dict) or not isinstance(props.get(part), dict):
                raise RegistrationError(
                    f"tool '{name}': x_mcp_headers names '{param}', which is not a parameter")
            node = props[part]
        node[ANNOTATION] = token
    header_marks(name, marked)
    return marked


def decode_header_value(raw: str, header: str) -> str:
    """A header value as text: ``=?base64?<b64>?=`` decoded (strictly), anything else literally.

    Raises:
        HeaderMismatch: characters a header value may not hold, or bad Base64 / UTF-8.
    """
    if not re.match(_FIELD_VALUE, raw):
        raise HeaderMismatch(f"Header mismatch: {header} holds characters a header value may not contain "
                             "(send text outside visible ASCII as =?base64?<Base64 of its UTF-8>?=)")
    wrapped = len(raw) >= len(_B64_PREFIX) + len(_B64_SUFFIX)
    if wrapped and raw.startswith(_B64_PREFIX) and raw.endswith(_B64_SUFFIX):
        encoded = raw[len(_B64_PREFIX):-len(_B64_SUFFIX)]
        try:
            return base64.b64decode(encoded, validate=True).decode("utf-8")
        except (binascii.Error, ValueError):
            raise HeaderMismatch(f"Header mismatch: {header} is not valid Base64 of UTF-8 text "
                                 "(check padding and alphabet)") from None
    return raw


def _agrees(text: str, value: object, kind: str) -> bool:
    if kind == "boolean" or isinstance(value, bool):
        return isinstance(value, bool) and text == ("true" if value else "false")
    if kind == "integer" and isinstance(value, (int, float)):
        try:
            number = float(text)
        except ValueError:
            return False
        return abs(number) <= _SAFE_INTEGER and number == value
    return isinstance(value, str) and text == value


def marks_for(tool: Tool) -> list[tuple[tuple[str, ...], str, str]]:
    """The ``x-mcp-header`` marks of a tool (computed once, kept in ``tool.extra``)."""
    marks = tool.extra.get(MARKS)
    if marks is None:
        try:
            marks = header_marks(tool.name, tool.input_schema)
        except RegistrationError:
            marks = []  # a schema registered without the checks: nothing to enforce
        tool.extra[MARKS] = marks
    return marks


def check_param_headers(marks: list[tuple[tuple[str, ...], str, str]], arguments: Mapping[str, Any],
                        headers: Mapping[str, str]) -> None:
    """Hold the ``Mcp-Param-*`` headers of a ``tools/call`` to its arguments.

    Args:
        marks: the tool's :func:`marks_for`.
        headers: the request headers (case-insensitive lookup, e.g. Tornado's ``HTTPHeaders``).
    Raises:
        HeaderMismatch: a header missing for a value in the body, present without one,
            malformed, or different after decoding.
    """
    for path, token, kind in marks:
        header = PARAM_PREFIX + token
        value: Any = arguments
        for part in path:
            value = value.get(part) if isinstance(value, Mapping) else None
        raw = headers.get(header)
        if value is None:
            if raw is not None:
                raise HeaderMismatch(f"Header mismatch: {header} is sent but the arguments hold no "
                                     f"'{'.'.join(path)}'")
            continue
        if raw is None:
            raise HeaderMismatch(
                f"Header mismatch: {header} is missing; it must mirror the '{'.'.join(path)}' argument")
        if not _agrees(decode_header_value(raw.strip(), header), value, kind):
            raise HeaderMismatch(f"Header mismatch: {header} does not match the '{'.'.join(path)}' argument")
