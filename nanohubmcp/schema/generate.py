"""A function's signature and docstring -> its MCP input schema, description and coercer.

Owns :func:`describe_function` and the :class:`Signature` record it returns. The type table
lives in ``mapping``, type comments in ``comments``, docstrings in ``docstrings``;
validation of calls is ``validate``'s job.

Source: MCP 2025-11-25, Server § Tools (``inputSchema``) and § Prompts (``arguments``);
JSON Schema 2020-12.
"""

from __future__ import annotations

import copy
import functools
import inspect
import linecache
import types as pytypes
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nanohubmcp.errors import InvalidArguments, RegistrationError
from nanohubmcp.schema import coerce as co
from nanohubmcp.schema.docstrings import read_docstring
from nanohubmcp.schema.fragments import member_schema
from nanohubmcp.schema.hints import evaluate, type_hints
from nanohubmcp.schema.mapping import TypeMapper
from nanohubmcp.schema.paths import invalid_arguments

if TYPE_CHECKING:
    from nanohubmcp.schema.comments import TypeComments

CONTEXT_NAMES = ("ctx", "context")
"""Parameter names that receive the request context when not annotated with a data type."""
_SELF_NAMES = ("self", "cls")
_EMPTY = inspect.Parameter.empty


def _identity(arguments: dict[str, Any]) -> dict[str, Any]:
    return arguments


class _Never:
    """A type no argument value has (the ``source``/``target`` of a coercer without a shortcut)."""

    def __init__(self, value: object) -> None:  # never made: a value would have to be one first
        raise AssertionError(value)


@dataclass(frozen=True)
class Signature:
    """Everything the server needs to publish and call one function.

    Attributes:
        input_schema: ``{"type": "object", "properties": {...}, "required": [...]}`` plus
            ``"additionalProperties": false`` unless the function takes ``**kwargs`` (then
            absent, or the schema of the ``**kwargs`` annotation), and ``"$defs"`` when a
            recursive type needs it.
        description: the cleaned docstring without its Args/Parameters sections, or ``None``.
        context_param: the parameter that receives the ``Context``, or ``None``.
        param_names: parameters that take call arguments, in signature order (no context
            parameter, ``self``/``cls`` or ``**kwargs``).
        var_keyword: the function takes ``**kwargs`` (extra arguments are accepted).
        coerce: ``coerce(validated_arguments) -> call_arguments``; returns a new dict with
            Enum members, dataclasses, tuples, sets, dates, bytes… in place of their JSON
            forms, or is the identity when no parameter needs it. Raises
            :class:`~nanohubmcp.errors.InvalidArguments` when a constructor refuses a value.
        prompt_arguments: ``[{"name", "description"?, "required"}]`` for MCP prompts.
    """

    input_schema: dict[str, Any]
    description: str | None
    context_param: str | None
    param_names: tuple[str, ...]
    var_keyword: bool
    coerce: Callable[[dict[str, Any]], dict[str, Any]]
    prompt_arguments: list[dict[str, Any]]
    known: frozenset[str] = field(init=False, repr=False, compare=False)
    """:attr:`param_names` as a set (checked on every call)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "known", frozenset(self.param_names))

    def call_arguments(
        self, arguments: dict[str, Any], context: object = None, *, kind: str, name: str
    ) -> dict[str, Any]:
        """The keyword arguments of a call: validated JSON ``arguments`` coerced (:attr:`coerce`),
        and ``context`` (the request's Context) for the context parameter.

        ``kind`` and ``name`` name the component in messages (``"tool"``, ``"add"``).

        Raises:
            InvalidArguments: an argument the function does not take (and it has no ``**kwargs``),
                or one that tries to fill the context parameter.
        """
        if not self.var_keyword and not self.known.issuperset(arguments):
            unknown = sorted(key for key in arguments if key not in self.known)
            raise InvalidArguments(f"Invalid arguments for {kind} '{name}': unknown argument(s) {', '.join(unknown)}")
        kwargs = self.coerce(arguments) if arguments else {}
        if self.context_param:
            if self.context_param in arguments:
                raise InvalidArguments(
                    f"Invalid arguments for {kind} '{name}': '{self.context_param}' is supplied by the server")
            # a new dict: coerce() may hand back the caller's own (server.call's arguments stay as given)
            kwargs = {**kwargs, self.context_param: context}
        return kwargs


def describe_function(
    fn: Callable[..., Any], *, kind: str, name: str, context_types: tuple[type, ...] = ()
) -> Signature:
    """Derive the input schema, description and argument coercion of ``fn``.

    Per parameter the type comes from, in order: the annotation (resolved with
    ``typing.get_type_hints(include_extras=True)``, string annotations and
    ``from __future__ import annotations`` included; a name that cannot be resolved means
    "any"), a per-argument ``# type:`` comment, the function's ``# type: (…) -> R``
    comment (PEP 484; found in the source tokens, never in the docstring; it may list or
    omit ``self``/``cls`` and the context parameter). Without any, the parameter accepts
    any JSON value. A parameter without a default is required. A default of ``None`` makes
    the parameter nullable. A JSON-representable default is published as ``"default"``
    (tuples as arrays, Enum members as values; NaN, infinities, sentinels and other objects
    are not published). Parameter descriptions come from the docstring (Google, NumPy or
    reST) or from ``Annotated[X, "text"]``, which wins.

    Annotation -> JSON Schema (and the Python value the function receives):

    ==================================  ======================================================
    ``str`` / ``int`` / ``float``       ``{"type": "string" | "integer" | "number"}``
                                        (an integral ``5.0`` reaches an ``int`` as ``5``)
    ``bool``, ``None``                  ``{"type": "boolean"}``, ``{"type": "null"}``
    ``X | None``, ``Optional[X]``       ``{"type": [X, "null"]}`` when X is a plain typed
                                        schema (enums get ``null`` added), else
                                        ``{"anyOf": [X, {"type": "null"}]}``
    ``Union[A, B]``, ``A | B``          ``{"type": [A, B]}`` when all are plain types, else
                                        ``{"anyOf": [A, B]}``; the value is coerced by the
                                        first member that accepts it. Any ``Any`` member: ``{}``
    ``list[X]``, ``List[X]``,           ``{"type": "array", "items": X}`` (a list)
    ``Sequence[X]``, ``Iterable[X]``
    ``set[X]``, ``frozenset[X]``        ``{"type": "array", "items": X, "uniqueItems": true}``
                                        (a set / frozenset)
    ``tuple[X, ...]``                   ``{"type": "array", "items": X}`` (a tuple)
    ``tuple[A, B]``                     ``{"type": "array", "prefixItems": [A, B],
                                        "minItems": 2, "maxItems": 2}`` (a tuple)
    ``dict[str, X]``, ``Mapping``       ``{"type": "object", "additionalProperties": X}``;
                                        ``dict[int, X]`` adds ``propertyNames`` (int keys)
    ``Literal["a", 1]``                 ``{"enum": ["a", 1]}`` with ``"type"`` when uniform
    ``enum.Enum`` subclass              ``{"enum": [values]}`` (+ ``"type"`` when uniform;
                                        member names when values are not JSON) -> the member
    ``TypedDict``                       ``{"type": "object", "properties", "required"}``
                                        (total-ness, ``Required``/``NotRequired``) -> a dict
    ``@dataclass``, ``NamedTuple``      the same plus ``"additionalProperties": false`` and
                                        field defaults -> an instance
    pydantic model                      ``model_json_schema()`` (``$defs`` hoisted) ->
                                        ``model_validate``
    ``bytes``, ``bytearray``            ``{"type": "string", "contentEncoding": "base64"}``
                                        -> the decoded bytes
    ``datetime``, ``date``, ``UUID``    ``{"type": "string", "format": "date-time" | "date" |
                                        "uuid"}`` -> the object; ``time`` -> a plain string
                                        (``fromisoformat``); ``Path`` -> string
    ``Annotated[X, "text", {...}]``     X's schema with ``"description": "text"``, and any
                                        dict merged in (``{"minimum": 0}``)
    ``NewType``, bound ``TypeVar``      the underlying type
    ``Any``, ``object``, missing,       ``{}`` (any value, passed as is)
    anything else
    ==================================  ======================================================

    The context parameter is the one annotated with one of ``context_types`` (also inside
    ``Optional``/``Annotated``, or named so in a type comment), else the one named ``ctx``
    or ``context`` unless it is annotated with a JSON data type (``context: str`` is an
    ordinary parameter).

    Args:
        fn: a function, bound method, ``functools.partial``, callable object or class.
        kind: ``"tool"``, ``"resource"`` or ``"prompt"``; used in messages.
        name: the registered name; used in messages.
        context_types: classes whose annotation marks the context parameter.

    Returns:
        The :class:`Signature`.

    Raises:
        RegistrationError: naming the component (``"tool 'add': …"``) when ``fn`` is not
            callable, is a lambda registered without a name, has a signature Python cannot
            report, takes ``*args`` or positional-only parameters, has two context
            parameters, or carries a type comment whose count fits no parameter list.

    Example:
        >>> def add(a: int, b: int = 2) -> int:
        ...     '''Add two numbers.'''
        ...     return a + b
        >>> describe_function(add, kind="tool", name="add").input_schema["required"]
        ['a']
    """
    label = f"{kind} {name!r}"
    if not callable(fn):
        raise RegistrationError(f"{label}: {fn!r} is not callable")
    if not name or name == "<lambda>":
        raise RegistrationError(f"{kind}: a lambda has no usable name; register it with name='...'")
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        raise RegistrationError(f"{label}: cannot read the signature of {fn!r} ({exc})") from None
    target = _code_object(fn)
    extra_names = {t.__name__: t for t in context_types}
    types = _parameter_types(target, signature, label, extra_names)
    mapper = TypeMapper(extra_names)
    context = _find_context(signature, types, context_types, label)
    docs = read_docstring(_docstring(fn, target))

    properties: dict[str, Any] = {}
    required: list[str] = []
    coercers: dict[str, co.Coercer] = {}
    extra: dict[str, Any] | None = None
    extra_coerce: co.Coercer | None = None
    for index, param in enumerate(signature.parameters.values()):
        if param.name == context:
            continue
        if index == 0 and param.name in _SELF_NAMES and param.kind is not param.KEYWORD_ONLY:
            continue
        if param.kind is param.VAR_POSITIONAL:
            raise RegistrationError(
                f"{label}: *{param.name} cannot receive arguments, which MCP passes by name; "
                "give each argument its own parameter (decorators should use functools.wraps)"
            )
        if param.kind is param.POSITIONAL_ONLY:
            raise RegistrationError(
                f"{label}: parameter {param.name!r} is positional-only, but MCP passes arguments by name"
            )
        mapped = mapper.map(types.get(param.name, typing.Any))
        if param.kind is param.VAR_KEYWORD:
            extra, extra_coerce = mapped.schema, mapped.coerce
            continue
        properties[param.name] = member_schema(
            mapped.schema,
            has_default=param.default is not _EMPTY,
            default=param.default,
            description=docs.params.get(param.name),
        )
        if param.default is _EMPTY:
            required.append(param.name)
        if mapped.coerce is not None:
            coercers[param.name] = mapped.coerce

    schema: dict[str, Any] = {"type": "object", "properties": properties, "required": required}
    if extra is None:
        schema["additionalProperties"] = False
    elif extra:
        schema["additionalProperties"] = extra
    if mapper.defs:
        schema["$defs"] = mapper.defs
    return Signature(
        # A private copy: fragments of a type used twice must not alias each other.
        input_schema=copy.deepcopy(schema),
        description=docs.description,
        context_param=context,
        param_names=tuple(properties),
        var_keyword=extra is not None,
        coerce=_make_coerce(coercers, extra_coerce, tuple(properties), kind, name),
        prompt_arguments=[_prompt_argument(n, p, n in required) for n, p in properties.items()],
    )


def _prompt_argument(name: str, schema: dict[str, Any], required: bool) -> dict[str, Any]:
    argument: dict[str, Any] = {"name": name}
    if isinstance(schema.get("description"), str):
        argument["description"] = schema["description"]
    argument["required"] = required
    return argument


def _code_object(fn: object) -> Any:
    """The plain function whose source, annotations and globals describe ``fn``.

    Partials and bound methods lead to their function, a class to its ``__init__``, a
    callable object to its class's ``__call__``; ``functools.wraps`` chains are unwrapped.
    """
    while isinstance(fn, functools.partial) or inspect.ismethod(fn):
        fn = fn.func if isinstance(fn, functools.partial) else fn.__func__
    if inspect.isclass(fn):
        fn = fn.__init__
    elif not inspect.isfunction(fn):
        # A callable object: its class's __call__ (found in the MRO) describes it.
        call = next((vars(k)["__call__"] for k in type(fn).__mro__ if "__call__" in vars(k)), None)
        fn = call if inspect.isfunction(call) else fn
    return inspect.unwrap(fn) if inspect.isfunction(fn) else fn


def _docstring(fn: object, target: object) -> str | None:
    """The docstring that describes ``fn``: a class's own (else its ``__init__``'s), else the function's."""
    if inspect.isclass(fn) and fn.__doc__ and not fn.__doc__.startswith(f"{fn.__name__}("):
        return fn.__doc__  # (a docstring starting "Name(" was written by @dataclass, not a person)
    if inspect.isfunction(target) and target.__doc__:
        return target.__doc__
    if isinstance(fn, functools.partial) or inspect.isclass(fn):
        return None  # partial's and type's own docstrings describe functools and type
    return getattr(fn, "__doc__", None)


def _type_comments(fn: Callable[..., Any]) -> TypeComments | None:
    """The PEP 484 type comments of ``fn``, looked for only when the text of its source file has a
    ``type:`` at all (the comments module tokenizes the function's source; most files have none)."""
    code = getattr(inspect.unwrap(fn), "__code__", None)
    lines = linecache.getlines(code.co_filename) if code is not None else []
    if lines and not any("type:" in line for line in lines):
        return None
    from nanohubmcp.schema.comments import read_type_comments

    return read_type_comments(fn)


def _parameter_types(
    target: Callable[..., Any], signature: inspect.Signature, label: str, extra: dict[str, Any]
) -> dict[str, Any]:
    """``{parameter: type}`` from annotations, then per-argument, then function type comments."""
    annotated = type_hints(target, extra) if inspect.isfunction(target) else _annotations_of(signature)
    # Type comments only fill in what annotations leave out; reading them means reading the source.
    unannotated = any(name not in annotated for name in signature.parameters)
    comments = _type_comments(target) if unannotated and inspect.isfunction(target) else None
    from_comments: dict[str, str] = {}
    if comments is not None:
        if comments.arguments is not None:
            names = list(inspect.signature(target).parameters)
            from_comments.update(_align(names, comments.arguments, label))
        from_comments.update(comments.per_argument)
    globalns = getattr(target, "__globals__", {})
    types: dict[str, Any] = {}
    for param in signature.parameters.values():
        if param.name in annotated:
            types[param.name] = annotated[param.name]
        elif param.name in from_comments:
            types[param.name] = evaluate(from_comments[param.name], globalns, extra)
    return types


def _annotations_of(signature: inspect.Signature) -> dict[str, Any]:
    return {p.name: p.annotation for p in signature.parameters.values() if p.annotation is not _EMPTY}


def _align(names: list[str], types: list[str], label: str) -> dict[str, str]:
    """Pair the function type comment's types with parameter names.

    The comment may list every parameter, or leave out ``self``/``cls`` and/or the
    parameter named ``ctx``/``context``.
    """
    candidates = [names]
    if names and names[0] in _SELF_NAMES:
        candidates.append(names[1:])
    candidates += [[n for n in c if n not in CONTEXT_NAMES] for c in list(candidates)]
    for candidate in candidates:
        if len(candidate) == len(types):
            return dict(zip(candidate, types, strict=True))
    raise RegistrationError(
        f"{label}: the '# type:' comment lists {len(types)} argument type(s) but the function "
        f"has {len(names)} parameter(s) ({', '.join(names)})"
    )


def _find_context(
    signature: inspect.Signature,
    types: dict[str, Any],
    context_types: tuple[type, ...],
    label: str,
) -> str | None:
    by_type = [n for n in signature.parameters if _is_context_type(types.get(n), context_types)]
    if len(by_type) > 1:
        raise RegistrationError(
            f"{label}: only one parameter can receive the context; found {', '.join(by_type)}"
        )
    if by_type:
        return by_type[0]
    for name in CONTEXT_NAMES:
        # By name only when no JSON data type is declared for it: `context: str` is data.
        if name in signature.parameters and not TypeMapper().map(types.get(name, typing.Any)).schema:
            return name
    return None


def _is_context_type(tp: object, context_types: tuple[type, ...]) -> bool:
    if tp is None or not context_types:
        return False
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return _is_context_type(typing.get_args(tp)[0], context_types)
    if origin in (typing.Union, pytypes.UnionType):
        members = [m for m in typing.get_args(tp) if m is not type(None)]
        return len(members) == 1 and _is_context_type(members[0], context_types)
    return isinstance(tp, type) and issubclass(tp, context_types)


def _make_coerce(
    coercers: dict[str, co.Coercer],
    extra: co.Coercer | None,
    known: tuple[str, ...],
    kind: str,
    name: str,
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    if not coercers and extra is None:
        return _identity
    known_names = frozenset(known)
    # Per parameter (source, builtin, target, coercer), compiled here once: a float parameter given
    # a JSON 2 gets float(2), given 2.5 keeps it, without a call of ours (coerce.SHORTCUTS).
    plan = {key: _step(c) for key, c in coercers.items()}
    rest = _step(extra) if extra is not None else None

    def coerce(arguments: dict[str, Any]) -> dict[str, Any]:
        out = dict(arguments)
        try:
            for key, value in arguments.items():
                step = plan.get(key) if key in known_names else rest
                # null reaches a parameter only when its schema allows it; it stays None.
                if step is None or value is None:
                    continue
                source, builtin, target, c = step
                kind_of = type(value)
                if kind_of is not target:
                    out[key] = builtin(value) if kind_of is source else c(value, (key,))
        except InvalidArguments as exc:
            raise invalid_arguments(kind, name, exc.errors) from None
        return out

    return coerce


def _step(c: co.Coercer) -> tuple[type, Callable[[Any], Any], type, co.Coercer]:
    shortcut = co.SHORTCUTS.get(c)
    if shortcut is None:
        return _Never, _Never, _Never, c  # no value is a _Never: always the coercer
    source, builtin, target = shortcut
    return source, builtin, target, c
