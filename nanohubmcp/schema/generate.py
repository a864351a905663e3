"""A function's signature and docstring -> its MCP input schema, description and coercer.

Owns :func:`describe_function`: the input schema (properties, required, ``additionalProperties``,
``$defs``), the prompt arguments and the :class:`Signature` it returns (the record and the
coercion its calls run live in ``signature``, re-exported here). Where each parameter's type
comes from and which one is the context is ``parameters``'s; the type table lives in
``mapping``, type comments in ``comments``, docstrings in ``docstrings``; validation of calls is
``validate``'s job.

Source: MCP 2025-11-25, Server § Tools (``inputSchema``) and § Prompts (``arguments``);
JSON Schema 2020-12.
"""

from __future__ import annotations

import copy
import inspect
import typing
from collections.abc import Callable
from typing import Any

from nanohubmcp.errors import RegistrationError
from nanohubmcp.schema import coerce as co
from nanohubmcp.schema.constraints import NotExpressible
from nanohubmcp.schema.default_check import default_breaks, published_member
from nanohubmcp.schema.docstrings import read_docstring
from nanohubmcp.schema.fragments import member_schema
from nanohubmcp.schema.hints import ClassNames, ClassOrLazy
from nanohubmcp.schema.mapping import TypeMapper
from nanohubmcp.schema.parameters import (
    CONTEXT_NAMES,
    SELF_NAMES,
    code_object,
    describing_docstring,
    find_context,
    parameter_types,
)
from nanohubmcp.schema.signature import Signature, make_coerce

__all__ = ["CONTEXT_NAMES", "Signature", "describe_function"]

_EMPTY = inspect.Parameter.empty


def describe_function(
    fn: Callable[..., Any], *, kind: str, name: str, context_types: tuple[ClassOrLazy, ...] = ()
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
    (tuples as arrays, Enum members as values, numpy scalars and ``float``/``int``/``str``
    subclasses as the plain number or text they hold; NaN, infinities, sentinels and other
    objects are not published: a number JSON cannot write is listed in ``Signature.unpublished`` when a
    record field's, and the registration warns of it, as of a parameter's). Parameter descriptions come
    from the docstring (Google, NumPy or reST) or from ``Annotated[X, "text"]``, which wins.

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
    ``Annotated[X, Field(gt=0)]``       X's schema with the constraint's keyword
                                        (``"exclusiveMinimum": 0``; pydantic ``Field`` and
                                        annotated_types ``Gt``/``MinLen``/...: ``constraints``);
                                        one no keyword can say is refused (RegistrationError)
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
        context_types: classes whose annotation marks the context parameter; a
            :class:`~nanohubmcp.schema.hints.LazyClass` stands for a class whose module is
            imported only when an annotation names it.

    Returns:
        The :class:`Signature`.

    Raises:
        RegistrationError: naming the component (``"tool 'add': …"``) when ``fn`` is not
            callable, is a lambda registered without a name, has a signature Python cannot
            report, takes ``*args`` or positional-only parameters, has two context
            parameters, or carries a type comment whose count fits no parameter list, or a constraint
            in ``Annotated`` that its JSON Schema cannot say (``Field(gt=date(...))``, a ``Predicate``),
            or has a default that breaks its own constraint (``Field(gt=0)`` with ``= -1``; the message
            names the parameter, the default and the constraint: :mod:`.default_check`).

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
    target = code_object(fn)
    extra_names = ClassNames(context_types)
    types = parameter_types(target, signature, label, extra_names)
    mapper = TypeMapper(extra_names)
    try:
        context = find_context(signature, types, context_types, label)
    except NotExpressible as exc:
        raise RegistrationError(f"{label}: {exc}") from None
    docs = read_docstring(describing_docstring(fn, target))

    properties: dict[str, Any] = {}
    required: list[str] = []
    coercers: dict[str, co.Coercer] = {}
    extra: dict[str, Any] | None = None
    extra_coerce: co.Coercer | None = None
    unpublished: list[tuple[str, str, str]] = []  # record fields' defaults left out: (parameter, field, why)
    for index, param in enumerate(signature.parameters.values()):
        if param.name == context:
            continue
        if index == 0 and param.name in SELF_NAMES and param.kind is not param.KEYWORD_ONLY:
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
        already = len(mapper.unpublished)
        try:
            mapped = mapper.map(types.get(param.name, typing.Any))
        except NotExpressible as exc:
            raise RegistrationError(f"{label}: parameter {param.name!r}: {exc}") from None
        unpublished += [(param.name, field, why) for field, why in mapper.unpublished[already:]]
        if param.kind is param.VAR_KEYWORD:
            extra, extra_coerce = mapped.schema, mapped.coerce
            continue
        properties[param.name] = published_member(member_schema(
            mapped.schema,
            has_default=param.default is not _EMPTY,
            default=param.default,
            description=docs.params.get(param.name),
        ), param.default)
        if param.default is _EMPTY:
            required.append(param.name)
        elif (broken := default_breaks(properties[param.name], param.default)) is not None:
            raise RegistrationError(f"{label}: parameter {param.name!r}: {broken}")
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
        coerce=make_coerce(coercers, extra_coerce, tuple(properties), kind, name),
        prompt_arguments=[_prompt_argument(n, p, n in required) for n, p in properties.items()],
        unpublished=tuple(unpublished),
    )


def _prompt_argument(name: str, schema: dict[str, Any], required: bool) -> dict[str, Any]:
    argument: dict[str, Any] = {"name": name}
    if isinstance(schema.get("description"), str):
        argument["description"] = schema["description"]
    argument["required"] = required
    return argument

