"""Resource records: ``Resource`` (a fixed URI) and ``ResourceTemplate`` (an RFC 6570 template), built by
:func:`make_resource` at decoration time.

Source: MCP 2025-11-25, Server § Resources (definition fields).
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...errors import InvalidArguments, InvalidParams, RegistrationError
from ...protocol.message_values import shown_value
from ...protocol.uris import comparison_form
from ...protocol.versions import ProtocolVersion
from ...protocol.wire import check_annotations
from ...schema import ArgumentValidator, Signature, describe_function
from ...schema.json_form import check_json_form
from ...schema.text_values import from_text
from .components import callable_name, check_meta, is_coroutine_callable
from .listed_text import check_key, check_mime_type, check_text, check_uri_characters

if TYPE_CHECKING:
    from ...schema.hints import ClassOrLazy
    from .uri_template import UriTemplate, Values

@dataclass(eq=False, kw_only=True)
class _ResourceRecord:
    """What resources and resource templates share: the function and the listing fields."""

    fn: Callable[..., Any]
    name: str
    signature: Signature
    description: str | None = None
    mime_type: str | None = None
    title: str | None = None
    tags: frozenset[str] = frozenset()
    meta: dict[str, Any] | None = None
    annotations: dict[str, Any] | None = None
    is_coroutine: bool = False

    def _wire_fields(self, wire: dict[str, Any], version: str) -> dict[str, Any]:
        if self.description:
            wire["description"] = self.description
        if self.mime_type:
            wire["mimeType"] = self.mime_type
        allows = version if isinstance(version, ProtocolVersion) else ProtocolVersion.of(version)
        if self.title and allows.titles:
            wire["title"] = self.title
        if self.annotations:
            wire["annotations"] = self.annotations
        if self.meta:
            wire["_meta"] = self.meta
        return wire


@dataclass(eq=False, kw_only=True)
class Resource(_ResourceRecord):
    """A resource at a fixed URI (MCP Server § Resources)."""

    uri: str
    size: int | None = None

    def to_wire(self, version: str) -> dict[str, Any]:
        """The ``resources/list`` entry for ``version``."""
        wire = self._wire_fields({"uri": self.uri, "name": self.name}, version)
        if self.size is not None:
            wire["size"] = self.size
        return wire


@dataclass(eq=False, kw_only=True)
class ResourceTemplate(_ResourceRecord):
    """A family of resources named by an RFC 6570 URI template (see :mod:`.uri_template`)."""

    uri_template: str
    compiled: UriTemplate
    _validator: ArgumentValidator | None = field(default=None, init=False, repr=False)

    @property
    def uri(self) -> str:
        """The template string (the registry key)."""
        return self.uri_template

    @property
    def variables(self) -> tuple[str, ...]:
        """The template's variable names, in order."""
        return self.compiled.names

    def match(self, uri: str) -> Values | None:
        """The variable values when ``uri`` matches, else None (see :meth:`.UriTemplate.match`; the
        scheme is compared without regard to case, percent-escapes as RFC 3986 § 6.2.2 compares them)."""
        return self.compiled.match(comparison_form(uri))

    def arguments(self, values: Values) -> dict[str, Any]:
        """The matched variables as the function's parameters want them: each text read by its
        parameter's schema (``pid: int`` gets an ``int``), then checked like a tool's arguments.

        Raises:
            InvalidParams: (-32602) a variable whose text is not what its parameter takes, or a query
                parameter given more than once (``?q=a&q=b``), naming it.
        """
        properties = self.signature.input_schema.get("properties") or {}
        read: dict[str, Any] = {}
        for name, text in values.items():
            if isinstance(text, list):
                raise InvalidParams(
                    f"Invalid arguments for resource template '{self.uri_template}': {name}: the query gives it "
                    f"{len(text)} times; give it once", {"uri_template": self.uri_template, "variable": name})
            try:
                read[name] = from_text(text, properties.get(name))
            except ValueError as exc:
                raise InvalidParams(
                    f"Invalid arguments for resource template '{self.uri_template}': {name}: {exc}",
                    {"uri_template": self.uri_template, "variable": name}) from None
        validator = self._validator
        if validator is None:  # made on first use, kept with the record
            validator = self._validator = ArgumentValidator(
                self.signature.input_schema, name=self.uri_template, kind="resource template", trusted=True)
        try:
            return validator.validate(read)
        except InvalidArguments as exc:
            raise InvalidParams(str(exc), {"errors": exc.errors, "uri_template": self.uri_template}) from None

    def to_wire(self, version: str) -> dict[str, Any]:
        """The ``resources/templates/list`` entry for ``version``."""
        return self._wire_fields({"uriTemplate": self.uri_template, "name": self.name}, version)


ANNOTATION_KEYS = ("audience", "priority", "lastModified")
"""The keys of MCP's Annotations (2025-06-18), which a resource's ``annotations`` may hold."""


def _checked_annotations(label: str, annotations: object) -> dict[str, Any] | None:
    """A resource's ``annotations`` as MCP's Annotations (2025-06-18): ``audience`` a list of "user" and
    "assistant", ``priority`` a number from 0 to 1, ``lastModified`` an ISO 8601 text, no other key, all of
    JSON values; else ``RegistrationError`` naming the resource (a client refused the whole list)."""
    try:
        checked = check_annotations(annotations, label)
    except (TypeError, ValueError) as exc:
        raise RegistrationError(f"{exc}; see MCP's Annotations: {{'audience': ['user'], 'priority': 0.5}}",
                                option="annotations") from None
    for key in checked or ():
        if key not in ANNOTATION_KEYS:  # as a tool's: a misspelt key would be published and never read
            raise RegistrationError(f"{label}: unknown annotation {shown_value(key)} (allowed: "
                                    f"{', '.join(ANNOTATION_KEYS)})", option="annotations")
    if checked:
        check_json_form(checked, label, "annotations", root="annotations")
    return checked


RETURNED_CLASSES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("pandas", ("DataFrame", "Series", "Index"), "text/csv"),
    ("numpy", ("ndarray",), "application/json"),
    ("pint", ("PlainQuantity", "Quantity"), "application/json"),
    ("matplotlib", ("Figure", "Axes"), "image/png"),
    ("PIL", ("Image",), "image/png"),
)
"""(package, class names, MIME type): a resource function annotated to return such a class (or a subclass) reads
as that type, as :func:`~nanohubmcp.server.results.convert.resource_form` writes it: a table as CSV, an array or a
pint Quantity as JSON text, a figure or a PIL image as PNG. Recognised by the class's module and name, nothing
imported."""


def returned_mime_type(fn: Callable[..., Any]) -> str | None:
    """The MIME type a read of ``fn``'s resource is certain to give, from its return annotation, for the listing
    (``resources/list``, ``resources/templates/list``) of a resource registered without ``mime_type=``:
    ``application/json`` when it is annotated to return a ``dict`` (``dict``, ``dict[str, float]``), whose read is
    its JSON text (:func:`~nanohubmcp.server.results.resources.resource_contents`); for a class of
    :data:`RETURNED_CLASSES`, the type its read gives (``-> pd.DataFrame``: ``text/csv``, ``-> Figure`` or ``->
    PIL.Image.Image``: ``image/png``, ``-> np.ndarray``: ``application/json``); None for anything else (a ``str``
    may be a converted form, a ``list`` may hold images): before, the listing gave no MIME type though the read
    gave one (trial60 F1, trial63 F7).

    Example:
        >>> def settings() -> dict[str, float]: ...
        >>> returned_mime_type(settings), returned_mime_type(lambda: 1)
        ('application/json', None)
    """
    from ...schema.hints import type_hints

    returned = type_hints(fn).get("return")
    if returned is dict or typing.get_origin(returned) is dict:
        return "application/json"
    if isinstance(returned, type):
        for package, names, mime in RETURNED_CLASSES:
            if any(c.__name__ in names and c.__module__.partition(".")[0] == package for c in returned.__mro__):
                return mime
    return None


def make_resource(
    fn: Callable[..., Any],
    uri: str,
    *,
    name: str | None = None,
    description: str | None = None,
    mime_type: str | None = None,
    title: str | None = None,
    tags: Iterable[str] | None = None,
    meta: dict[str, Any] | None = None,
    annotations: dict[str, Any] | None = None,
    size: int | None = None,
    context_types: tuple[ClassOrLazy, ...] = (),
) -> Resource | ResourceTemplate:
    """Build a :class:`Resource`, or a :class:`ResourceTemplate` when ``uri`` has ``{placeholders}``.

    Raises:
        RegistrationError: empty URI, unbalanced braces, a malformed or repeated RFC 6570
            variable, two variables with nothing between them (``{a}{b}``, see
            :mod:`.uri_template`), a variable the function does not accept, a parameter default JSON
            cannot write; a listed field a client cannot read (:mod:`.listed_text`: a UTF-16 surrogate
            in the URI or a text, a MIME type that is not ``type/subtype``), a URI (or template) over
            :data:`~.listed_text.MAX_KEY_CHARS` (8192) characters, ``annotations`` that are not MCP's.
    """
    if not isinstance(uri, str) or not uri:
        raise RegistrationError(
            "@resource needs a URI string as its first argument, e.g. @server.resource('config://settings')")
    label = f"resource {'template ' if '{' in uri else ''}'{uri}'"
    check_text(label, "uri", uri, uri=True)  # a client reads the URI it was shown
    check_uri_characters(label.partition(" '")[0], uri)
    check_key(label, "uri", uri)  # (resources/read reads none longer)
    rname = callable_name(fn, f"resource '{uri}'", name)
    check_text(label, "name", rname)
    signature = describe_function(fn, kind="resource", name=rname, context_types=context_types)
    common: dict[str, Any] = {
        "fn": fn,
        "name": rname,
        "signature": signature,
        "description": check_text(label, "description",
                                  description if description is not None else signature.description),
        "mime_type": check_mime_type(label, mime_type) or returned_mime_type(fn),
        "title": check_text(label, "title", title),
        "tags": frozenset(tags or ()),
        "meta": check_meta("resource", uri, meta),
        "annotations": _checked_annotations(label, annotations),
        "is_coroutine": is_coroutine_callable(fn),
    }
    if "{" not in uri and "}" not in uri:
        # a bool is no size; nor an int past 64 bits (10**5000 made every resources/list -32603)
        if size is not None and (isinstance(size, bool) or not isinstance(size, int) or not 0 <= size < 2**63):
            raise RegistrationError(f"{label}: size={shown_value(size)} is not a number of bytes; give a whole number, "
                                    "e.g. size=1024, or leave it out", option="size")
        return Resource(uri=uri, size=size, **common)
    from .uri_template import TemplateError, compile_template  # only for templates: not at a server's start

    try:
        compiled = compile_template(uri)
    except TemplateError as exc:
        raise RegistrationError(str(exc)) from None
    missing = [v for v in compiled.names if v not in signature.param_names and not signature.var_keyword]
    if missing:
        raise RegistrationError(
            f"resource template '{uri}': the function does not accept parameter(s) {', '.join(missing)}")
    # Its parameters' defaults (a default of nan or 10**5000) are checked now, not by its first read.
    check_json_form(signature.input_schema, label, "input schema")
    return ResourceTemplate(uri_template=uri, compiled=compiled, **common)
