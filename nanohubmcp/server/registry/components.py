"""Component records: ``Tool``, ``Resource``, ``ResourceTemplate``, ``Prompt``.

Each record is built once, at decoration time, by ``from_function``: the schema is generated,
the validator compiled, and every mistake raised as :class:`~nanohubmcp.errors.RegistrationError`
naming the component. ``to_wire(version)`` gives the listing entry for a protocol version.

Source: MCP 2025-11-25, Server § Tools / Resources / Prompts (definition fields);
SEP-986 (tool names).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...errors import InvalidArguments, InvalidParams, RegistrationError
from ...protocol.versions import ProtocolVersion
from ...schema import ArgumentValidator, OutputValidator, Signature, describe_function
from ...schema.text_values import from_text

if TYPE_CHECKING:
    from .uri_template import UriTemplate

TOOL_NAME = re.compile(r"^[A-Za-z0-9_.\-]{1,128}$")
ANNOTATION_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def _callable_name(fn: Callable[..., Any], kind: str, name: str | None) -> str:
    if name:
        return name
    fn_name = getattr(fn, "__name__", None)
    if not fn_name or fn_name == "<lambda>":
        raise RegistrationError(f"{kind} needs a name: pass name=... for a lambda or a callable object")
    return str(fn_name)


def _is_coroutine(fn: Callable[..., Any]) -> bool:
    # A callable object whose __call__ is a coroutine function runs on the loop too.
    call = type(fn).__dict__.get("__call__") if not inspect.isroutine(fn) else None
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(call)


def _check_annotations(kind: str, name: str, annotations: dict[str, Any] | None) -> dict[str, Any] | None:
    if annotations is None:
        return None
    if not isinstance(annotations, dict):
        raise RegistrationError(f"{kind} '{name}': annotations must be a dict")
    for key, value in annotations.items():
        if key == "title":
            if not isinstance(value, str):
                raise RegistrationError(f"{kind} '{name}': annotations['title'] must be a string")
        elif key in ANNOTATION_HINTS:
            if not isinstance(value, bool):
                raise RegistrationError(f"{kind} '{name}': annotations['{key}'] must be true or false")
        else:
            allowed = ", ".join(("title", *ANNOTATION_HINTS))
            raise RegistrationError(f"{kind} '{name}': unknown annotation '{key}' (allowed: {allowed})")
    return dict(annotations)


def _check_meta(kind: str, name: str, meta: object) -> dict[str, Any] | None:
    if meta is not None and not isinstance(meta, dict):
        raise RegistrationError(f"{kind} '{name}': meta must be a dict")
    return meta


@dataclass(eq=False)
class Tool:
    """A tool: a function the model can call (MCP Server § Tools).

    Attributes:
        name: unique name, 1-128 of ``[A-Za-z0-9_.-]`` (SEP-986).
        fn: the Python callable; coroutine functions run on the event loop, others on the
            worker pool.
        input_schema / output_schema: JSON Schemas (2020-12).
        background: True for ``@async_tool``: a call starts a job and answers at once.
    """

    name: str
    fn: Callable[..., Any]
    signature: Signature
    input_schema: dict[str, Any]
    validator: ArgumentValidator
    description: str | None = None
    title: str | None = None
    tags: frozenset[str] = frozenset()
    meta: dict[str, Any] | None = None
    annotations: dict[str, Any] | None = None
    output_schema: dict[str, Any] | None = None
    output_validator: OutputValidator | None = None
    background: bool = False
    is_coroutine: bool = False
    icons: list[dict[str, Any]] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_function(
        cls,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        title: str | None = None,
        tags: Iterable[str] | None = None,
        meta: dict[str, Any] | None = None,
        annotations: dict[str, Any] | None = None,
        input_schema: dict[str, Any] | None = None,
        output_schema: dict[str, Any] | None = None,
        background: bool = False,
        icons: list[dict[str, Any]] | None = None,
        context_types: tuple[type, ...] = (),
    ) -> Tool:
        """Build a tool record from a function; raises ``RegistrationError`` naming the tool."""
        if isinstance(fn, str):
            kind = "async_tool" if background else "tool"
            raise RegistrationError(
                f"@{kind} was given the string {fn!r}: pass a name as @server.{kind}(name={fn!r})")
        if not callable(fn):
            raise RegistrationError(
                f"@tool was given {fn!r}, which is not callable (did you forget the parentheses?)")
        tool_name = _callable_name(fn, "tool", name)
        if not TOOL_NAME.match(tool_name):
            raise RegistrationError(
                f"tool '{tool_name}': names are 1-128 ASCII letters, digits, '_', '-' and '.' (SEP-986); "
                "pass name='...' to publish a Python function under such a name", option="name")
        signature = describe_function(fn, kind="tool", name=tool_name, context_types=context_types)
        schema = input_schema if input_schema else signature.input_schema
        if not isinstance(schema, dict) or schema.get("type") != "object":
            raise RegistrationError(f"tool '{tool_name}': input_schema must be a JSON Schema with type 'object'")
        if output_schema is not None and not isinstance(output_schema, dict):
            raise RegistrationError(f"tool '{tool_name}': output_schema must be a dict (a JSON Schema)")
        return cls(
            name=tool_name,
            fn=fn,
            signature=signature,
            input_schema=schema,
            validator=ArgumentValidator(schema, name=tool_name, trusted=not input_schema),
            description=description if description is not None else signature.description,
            title=title,
            tags=frozenset(tags or ()),
            meta=_check_meta("tool", tool_name, meta),
            annotations=_check_annotations("tool", tool_name, annotations),
            output_schema=output_schema,
            output_validator=OutputValidator(output_schema, name=tool_name) if output_schema else None,
            background=background,
            is_coroutine=_is_coroutine(fn),
            icons=icons,
        )

    def to_wire(self, version: str) -> dict[str, Any]:
        """The ``tools/list`` entry for ``version``."""
        allows = version if isinstance(version, ProtocolVersion) else ProtocolVersion.of(version)
        wire: dict[str, Any] = {"name": self.name, "inputSchema": self.input_schema}
        if self.description:
            wire["description"] = self.description
        if self.title and allows.titles:
            wire["title"] = self.title
        if self.annotations and allows.tool_annotations:
            wire["annotations"] = self.annotations
        if self.output_schema and allows.structured_content:
            wire["outputSchema"] = self.output_schema
        if self.icons and allows.icons:
            wire["icons"] = self.icons
        if self.meta:
            wire["_meta"] = self.meta
        return wire


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

    def match(self, uri: str) -> dict[str, str] | None:
        """The variable values when ``uri`` matches, else None."""
        return self.compiled.match(uri)

    def arguments(self, values: dict[str, str]) -> dict[str, Any]:
        """The matched variables as the function's parameters want them: each text read by its
        parameter's schema (``pid: int`` gets an ``int``), then checked like a tool's arguments.

        Raises:
            InvalidParams: (-32602) a variable whose text is not what its parameter takes, naming it.
        """
        properties = self.signature.input_schema.get("properties") or {}
        read: dict[str, Any] = {}
        for name, text in values.items():
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
    context_types: tuple[type, ...] = (),
) -> Resource | ResourceTemplate:
    """Build a :class:`Resource`, or a :class:`ResourceTemplate` when ``uri`` has ``{placeholders}``.

    Raises:
        RegistrationError: empty URI, unbalanced braces, a malformed or repeated RFC 6570
            variable, or a variable the function does not accept.
    """
    if not isinstance(uri, str) or not uri:
        raise RegistrationError(
            "@resource needs a URI string as its first argument, e.g. @server.resource('config://settings')")
    rname = _callable_name(fn, f"resource '{uri}'", name)
    signature = describe_function(fn, kind="resource", name=rname, context_types=context_types)
    common: dict[str, Any] = {
        "fn": fn,
        "name": rname,
        "signature": signature,
        "description": description if description is not None else signature.description,
        "mime_type": mime_type,
        "title": title,
        "tags": frozenset(tags or ()),
        "meta": _check_meta("resource", uri, meta),
        "annotations": annotations,
        "is_coroutine": _is_coroutine(fn),
    }
    if "{" not in uri and "}" not in uri:
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
    return ResourceTemplate(uri_template=uri, compiled=compiled, **common)


@dataclass(eq=False)
class Prompt:
    """A prompt template (MCP Server § Prompts)."""

    name: str
    fn: Callable[..., Any]
    signature: Signature
    arguments: list[dict[str, Any]]
    description: str | None = None
    title: str | None = None
    tags: frozenset[str] = frozenset()
    meta: dict[str, Any] | None = None
    icons: list[dict[str, Any]] | None = None
    is_coroutine: bool = False

    @classmethod
    def from_function(
        cls,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        title: str | None = None,
        tags: Iterable[str] | None = None,
        meta: dict[str, Any] | None = None,
        context_types: tuple[type, ...] = (),
    ) -> Prompt:
        """Build a prompt record; raises ``RegistrationError`` naming the prompt."""
        if isinstance(fn, str):
            raise RegistrationError(f"@prompt was given the string {fn!r}: pass a name as @server.prompt(name={fn!r})")
        if not callable(fn):
            raise RegistrationError(
                f"@prompt was given {fn!r}, which is not callable (did you forget the parentheses?)")
        pname = _callable_name(fn, "prompt", name)
        signature = describe_function(fn, kind="prompt", name=pname, context_types=context_types)
        return cls(
            name=pname,
            fn=fn,
            signature=signature,
            arguments=list(signature.prompt_arguments),
            description=description if description is not None else signature.description,
            title=title,
            tags=frozenset(tags or ()),
            meta=_check_meta("prompt", pname, meta),
            is_coroutine=_is_coroutine(fn),
        )

    def to_wire(self, version: str) -> dict[str, Any]:
        """The ``prompts/list`` entry for ``version``."""
        wire: dict[str, Any] = {"name": self.name}
        if self.description:
            wire["description"] = self.description
        if self.arguments:
            wire["arguments"] = self.arguments
        allows = version if isinstance(version, ProtocolVersion) else ProtocolVersion.of(version)
        if self.title and allows.titles:
            wire["title"] = self.title
        if self.meta:
            wire["_meta"] = self.meta
        return wire


TASK_SUPPORT = "task_support"
"""``Tool.extra`` key of a tool's task support (the 2026-07-28 tasks extension)."""


def task_support(tool: Tool) -> str:
    """``"forbidden"``, ``"optional"`` or ``"required"`` (``@async_tool`` defaults to optional)."""
    support = tool.extra.get(TASK_SUPPORT)
    if support is None:
        return "optional" if tool.background else "forbidden"
    return str(support)
