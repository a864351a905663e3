"""The ``Tool`` record, and what every component record shares (names, annotations, ``_meta`` checks).

``Resource`` / ``ResourceTemplate`` live in :mod:`.resources` and ``Prompt`` in :mod:`.prompts`,
imported when a server registers its first resource or prompt (a record class is made when its
module loads, and a dataclass costs as much as a few modules). Each record is built once, at
decoration time, by ``from_function``: the schema is generated, the validator compiled, and every
mistake raised as :class:`~nanohubmcp.errors.RegistrationError` naming the component.
``to_wire(version)`` gives the listing entry for a protocol version.

Source: MCP 2025-11-25, Server § Tools / Resources / Prompts (definition fields); SEP-986 (tool
names).
"""

from __future__ import annotations

import inspect
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ...errors import RegistrationError
from ...protocol.message_values import shown_value
from ...protocol.versions import ProtocolVersion
from ...schema import (
    ArgumentValidator,
    CheckedArgumentValidator,
    GeneratedSchema,
    OutputValidator,
    Signature,
    describe_function,
)
from ...schema.json_form import check_json_form
from ...schema.paths import echoed
from ...schema.secret import Plan, secret_plan
from .generators import refuse_generator
from .listed_text import check_text, icon_src_problem, mime_type_problem, text_fix

if TYPE_CHECKING:
    from ...schema.hints import ClassOrLazy

_TOOL_NAME_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
ANNOTATION_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def callable_name(fn: Callable[..., Any], kind: str, name: str | None) -> str:
    """``name``, else (``name`` None) ``fn``'s ``__name__``; an empty ``name`` (an unset setting, say),
    a lambda or a nameless callable raises ``RegistrationError``."""
    if name is not None and not isinstance(name, str):
        raise RegistrationError(f"{kind}: name={shown_value(name)} is not a string; {text_fix('name', name)}",
                                option="name")
    if name:
        return name
    fn_name = getattr(fn, "__name__", None)
    if name is not None:
        own = f" ({fn_name!r})" if fn_name and fn_name != "<lambda>" else ""
        raise RegistrationError(
            f"{kind} name={name!r} is empty: pass a non-empty name=..., or leave name out to use the "
            f"function's name{own}", option="name")
    if not fn_name or fn_name == "<lambda>":
        raise RegistrationError(f"{kind} needs a name: pass name=... for a lambda or a callable object")
    return str(fn_name)


def is_tool_name(name: str) -> bool:
    """Whether ``name`` is a tool name clients can call (SEP-986): 1-128 ASCII letters, digits, ``_``, ``-``, ``.``."""
    # (read character by character, not by a pattern: compiling one cost ~0.4 M instructions of every server's start)
    return 1 <= len(name) <= 128 and _TOOL_NAME_CHARACTERS.issuperset(name)


def check_tool_name(tool_name: str, *, given: bool) -> None:
    """Refuse a tool name clients cannot call (SEP-986), saying what to give instead; ``given``: the name
    was passed (``name=``), else it is the function's own. The name is repeated :func:`echoed` (cut, escaped)."""
    if not is_tool_name(tool_name):
        raise RegistrationError(
            f"tool '{echoed(tool_name)}': names are 1-128 ASCII letters, digits, '_', '-' and '.' (SEP-986); "
            f"{_name_fix(given)}, e.g. name={name_like(tool_name)!r}", option="name")


def check_prompt_name(prompt_name: str, *, given: bool) -> None:
    """Refuse a prompt name holding a character that prints as nothing, moves what follows or is blank (a control
    character, ESC among them, a line break, a bidirectional override such as U+202E, a zero-width one, a space),
    as a tool name refuses them: a client shows it (a slash command) and sends it back. Letters of any script are
    taken (a tool name's are SEP-986's ASCII). ``given`` as :func:`check_tool_name`'s."""
    if prompt_name.isprintable() and not any(c.isspace() for c in prompt_name):
        return
    kept = "".join(c if c.isprintable() and not c.isspace() else "\0" for c in prompt_name)
    like = "_".join(part for part in kept.split("\0") if part)[:128] or "my_prompt"
    raise RegistrationError(
        f"prompt '{echoed(prompt_name)}': names hold no control, invisible or whitespace character, as tool names "
        f"(SEP-986); {_name_fix(given)}, e.g. name={like!r}", option="name")


def _name_fix(given: bool) -> str:
    # Given: another name, like it; the function's own (not ASCII, say): a name to publish it under.
    return "choose another" if given else "publish this function under another name"


def name_like(text: str, fallback: str = "my_tool", limit: int | None = 128) -> str:
    """A tool name (SEP-986) close to ``text``: accents dropped, each run of other characters ``_``,
    ``_`` at either end dropped, cut to ``limit`` characters (None: not cut, to tell whether it
    would be); ``fallback`` when nothing is left."""
    ascii_text = unicodedata.normalize("NFKD", text.replace("ß", "ss")).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^A-Za-z0-9_.\-]+", "_", ascii_text).strip("_")[:limit] or fallback


def is_coroutine_callable(fn: Callable[..., Any]) -> bool:
    """Whether calling ``fn`` makes a coroutine (it then runs on the event loop)."""
    # A callable object whose __call__ is a coroutine function runs on the loop too.
    call = type(fn).__dict__.get("__call__") if not inspect.isroutine(fn) else None
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(call)


def check_annotations(kind: str, name: str, annotations: dict[str, Any] | None) -> dict[str, Any] | None:
    """A copy of a tool's ``annotations`` once each hint is checked (``RegistrationError`` naming it)."""
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


def check_meta(kind: str, name: str, meta: object) -> dict[str, Any] | None:
    """``meta`` when it is a dict or None, of JSON values only; anything else raises ``RegistrationError``."""
    if meta is not None and not isinstance(meta, dict):
        raise RegistrationError(f"{kind} '{name}': meta must be a dict")
    if meta:
        # published in every list: a set would fail them all
        check_json_form(meta, f"{kind} '{name}'", "meta", root="meta")
    return meta


def check_icons(label: str, icons: object) -> list[dict[str, Any]] | None:
    """``icons`` when it is None or MCP's Icons (2025-11-25): a list of ``{"src": text, "mimeType"?: text,
    "sizes"?: [text], "theme"?: "light" | "dark"}`` of JSON values, each ``src`` an ``https:`` URL or a
    ``data:`` URI (the only ones a client may show), each ``mimeType`` a MIME type as a resource's ``mime_type``
    is (``listed_text.mime_type_problem``); else ``RegistrationError`` naming ``label``.

    .. versionchanged:: 1.0
       An icon's ``mimeType`` that is no MIME type (``""``, ``"png"``, a line break) is refused (any text was
       published)."""
    if icons is None:
        return None
    if not isinstance(icons, list) or not all(isinstance(icon, dict) for icon in icons):
        raise RegistrationError(f"{label}: icons must be a list of dicts, e.g. "
                                "icons=[{'src': 'https://example.org/icon.png', 'mimeType': 'image/png'}]",
                                option="icons")
    for index, icon in enumerate(icons):
        sizes = icon.get("sizes", [])
        if not isinstance(icon.get("src"), str) or not isinstance(icon.get("mimeType", ""), str) \
                or not isinstance(sizes, list) or not all(isinstance(size, str) for size in sizes) \
                or icon.get("theme", "light") not in ("light", "dark"):
            raise RegistrationError(
                f"{label}: icons[{index}] must be {{'src': text, 'mimeType'?: text, 'sizes'?: [text], "
                f"'theme'?: 'light' or 'dark'}}, not {icon!r:.80}", option="icons")
    for index, icon in enumerate(icons):
        problem = icon_src_problem(icon["src"])
        if problem:
            raise RegistrationError(f"{label}: icons[{index}].src={shown_value(icon['src'])} {problem}", option="icons")
        mime = icon.get("mimeType")
        problem = None if mime is None else mime_type_problem(mime, "'image/png' or 'image/svg+xml'")
        if problem:
            raise RegistrationError(f"{label}: icons[{index}].mimeType={shown_value(mime)} {problem}", option="icons")
    check_json_form(icons, label, "icons", root="icons")
    return icons


STOPS_WHEN_CANCELLED = "stops_when_cancelled"
"""``Tool.extra`` key: True for a tool whose function ends its run when its call is cancelled (a Rappture
program's process group, a Sim2L kernel): a call past ``tool_timeout`` then says its run was stopped."""


@dataclass(eq=False, init=False, repr=False)
class Tool:
    """A tool: a function the model can call (MCP Server § Tools).

    A dataclass (``dataclasses.replace``, ``fields`` and ``asdict`` work on it) whose ``__init__`` and
    ``__repr__`` are written out: the ones ``@dataclass`` makes are compiled from source when this module
    loads, ~2.8 M instructions of every server's cold start (bench/startup.md, tenth pass). They take and
    show the same fields in the same order.

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

    def __init__(
        self,
        name: str,
        fn: Callable[..., Any],
        signature: Signature,
        input_schema: dict[str, Any],
        validator: ArgumentValidator,
        description: str | None = None,
        title: str | None = None,
        tags: frozenset[str] = frozenset(),
        meta: dict[str, Any] | None = None,
        annotations: dict[str, Any] | None = None,
        output_schema: dict[str, Any] | None = None,
        output_validator: OutputValidator | None = None,
        background: bool = False,
        is_coroutine: bool = False,
        icons: list[dict[str, Any]] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        self.name = name
        self.fn = fn
        self.signature = signature
        self.input_schema = input_schema
        self.validator = validator
        self.description = description
        self.title = title
        self.tags = tags
        self.meta = meta
        self.annotations = annotations
        self.output_schema = output_schema
        self.output_validator = output_validator
        self.background = background
        self.is_coroutine = is_coroutine
        self.icons = icons
        self.extra = {} if extra is None else extra  # a dict of its own per tool (the field's default_factory)

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in _TOOL_FIELDS)
        return f"Tool({shown})"

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
        context_types: tuple[ClassOrLazy, ...] = (),
        check_arguments: Callable[[dict[str, Any]], object] | None = None,
        check_off_loop: bool = False,
    ) -> Tool:
        """Build a tool record from a function; raises ``RegistrationError`` naming the tool.

        ``check_arguments(arguments)``, when given, runs on every call's arguments once the input
        schema accepts them, before the function runs or a job is created; it raises
        ``InvalidArguments`` for what the schema cannot say (answered as a schema violation is). It
        runs on the event loop: one that must first load something slow raises
        ``schema.CheckPending``, and the server loads it on a worker thread, then checks again.
        ``check_off_loop=True`` runs every call's check (with the schema's) on a worker thread: a
        check that may itself take long (a Sim2L converting a large array's units).
        """
        if isinstance(fn, str):
            kind = "async_tool" if background else "tool"
            raise RegistrationError(
                f"@{kind} was given the string {fn!r}: pass a name as @server.{kind}(name={fn!r})")
        if not callable(fn):
            raise RegistrationError(
                f"@tool was given {fn!r}, which is not callable (did you forget the parentheses?)")
        tool_name = callable_name(fn, "tool", name)
        check_tool_name(tool_name, given=bool(name))
        refuse_generator(fn, tool_name)
        signature = describe_function(fn, kind="tool", name=tool_name, context_types=context_types)
        schema = input_schema if input_schema else signature.input_schema
        if not isinstance(schema, dict) or schema.get("type") != "object":
            raise RegistrationError(f"tool '{tool_name}': input_schema must be a JSON Schema with type 'object'")
        if output_schema is not None and not isinstance(output_schema, dict):
            raise RegistrationError(f"tool '{tool_name}': output_schema must be a dict (a JSON Schema)")
        trusted = not input_schema or isinstance(input_schema, GeneratedSchema)
        validator = ArgumentValidator(schema, name=tool_name, trusted=trusted) if check_arguments is None \
            else CheckedArgumentValidator(schema, name=tool_name, trusted=trusted, check=check_arguments,
                                          off_loop=check_off_loop)
        tool = cls(
            name=tool_name,
            fn=fn,
            signature=signature,
            input_schema=schema,
            validator=validator,
            description=check_text(f"tool '{tool_name}'", "description",
                                   description if description is not None else signature.description),
            title=check_text(f"tool '{tool_name}'", "title", title),
            tags=frozenset(tags or ()),
            meta=check_meta("tool", tool_name, meta),
            annotations=check_annotations("tool", tool_name, annotations),
            output_schema=output_schema,
            output_validator=OutputValidator(output_schema, name=tool_name) if output_schema else None,
            background=background,
            is_coroutine=is_coroutine_callable(fn),
            icons=check_icons(f"tool '{tool_name}'", icons),
        )
        _ = tool.secrets  # read at registration, not on the first call
        return tool

    @cached_property
    def secrets(self) -> Plan | None:
        """Where the input schema marks values secret (``Secret``, ``format: password``,
        ``writeOnly``), at any depth; None for a tool without any (read once per tool: what the
        records and the job store keep of a call's arguments, see ``schema.secret``)."""
        return secret_plan(self.input_schema)

    @cached_property
    def call_key(self) -> str:
        """``"tool '<name>'"``: how messages name the tool, and its key in the worker pool's timings
        (made once: a call looks it up in the inline set)."""
        return f"tool '{self.name}'"

    def to_wire(self, version: str) -> dict[str, Any]:
        """The ``tools/list`` entry for ``version``; on 2025-11-25 a tool that takes tasks says so in
        ``execution.taskSupport``."""
        allows = version if isinstance(version, ProtocolVersion) else ProtocolVersion.of(version)
        wire: dict[str, Any] = {"name": self.name, "inputSchema": self.input_schema}
        if self.description:
            wire["description"] = self.description
        if self.title and allows.titles:
            wire["title"] = self.title
        if self.annotations and allows.tool_annotations:
            wire["annotations"] = self.annotations
        if self.output_schema and allows.structured_content and (
                allows.modern or self.output_schema.get("type") == "object"):
            # Up to 2025-11-25 an outputSchema is an object schema (a client refuses the whole
            # list otherwise); from 2026-07-28 any schema, an array's too.
            wire["outputSchema"] = self.output_schema
        if self.icons and allows.icons:
            wire["icons"] = self.icons
        if self.meta:
            wire["_meta"] = self.meta
        if allows.tasks:  # 2025-11-25: a tool that takes tasks says so (absent means "forbidden")
            support = task_support(self)
            if support != "forbidden":
                wire["execution"] = {"taskSupport": support}
        return wire


_TOOL_FIELDS = tuple(Tool.__dataclass_fields__)  # what the repr shows, in the fields' order


TASK_SUPPORT = "task_support"
"""``Tool.extra`` key of a tool's task support (the 2026-07-28 tasks extension)."""


def task_support(tool: Tool) -> str:
    """``"forbidden"``, ``"optional"`` or ``"required"`` (``@async_tool`` defaults to optional)."""
    support = tool.extra.get(TASK_SUPPORT)
    if support is None:
        return "optional" if tool.background else "forbidden"
    return str(support)
