"""What describes a function's parameters: its code object, its docstring, each parameter's type, the context one.

Owns where a parameter's type comes from (the annotation, else a per-argument ``# type:``
comment, else the function's PEP 484 type comment), which parameter receives the request
context (by annotation, else by name), and which function and docstring stand for a partial,
bound method, class or callable object. Turning types into JSON Schema is
:mod:`nanohubmcp.schema.mapping`'s; assembling the input schema,
:func:`nanohubmcp.schema.generate.describe_function`'s. Runs at registration, never per call.
"""

from __future__ import annotations

import functools
import inspect
import linecache
import types as pytypes
import typing
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from nanohubmcp.errors import RegistrationError
from nanohubmcp.schema.hints import ClassOrLazy, evaluate, loaded_classes, type_hints
from nanohubmcp.schema.mapping import TypeMapper

if TYPE_CHECKING:
    from nanohubmcp.schema.comments import TypeComments

__all__ = ["CONTEXT_NAMES", "SELF_NAMES", "code_object", "describing_docstring", "find_context", "parameter_types"]

CONTEXT_NAMES = ("ctx", "context")
"""Parameter names that receive the request context when not annotated with a data type."""
SELF_NAMES = ("self", "cls")
"""Names of a first parameter that takes no argument (a method's instance or class)."""
_EMPTY = inspect.Parameter.empty


def code_object(fn: object) -> Any:
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


def describing_docstring(fn: object, target: object) -> str | None:
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


def parameter_types(
    target: Callable[..., Any], signature: inspect.Signature, label: str, extra: Mapping[str, Any]
) -> dict[str, Any]:
    """``{parameter: type}`` from annotations, then per-argument, then function type comments.

    A wrapped function (``functools.lru_cache``, ``functools.wraps``) is read through ``__wrapped__``:
    its string annotations (``from __future__ import annotations``) resolve in the module of the
    function it wraps, as ``typing.get_type_hints`` does."""
    function = inspect.unwrap(target)
    annotated = type_hints(function, extra) if inspect.isfunction(function) else _annotations_of(signature)
    # Type comments only fill in what annotations leave out; reading them means reading the source.
    unannotated = any(name not in annotated for name in signature.parameters)
    comments = _type_comments(function) if unannotated and inspect.isfunction(function) else None
    from_comments: dict[str, str] = {}
    if comments is not None:
        if comments.arguments is not None:
            names = list(inspect.signature(function).parameters)
            from_comments.update(_align(names, comments.arguments, label))
        from_comments.update(comments.per_argument)
    globalns = getattr(function, "__globals__", {})
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
    if names and names[0] in SELF_NAMES:
        candidates.append(names[1:])
    candidates += [[n for n in c if n not in CONTEXT_NAMES] for c in list(candidates)]
    for candidate in candidates:
        if len(candidate) == len(types):
            return dict(zip(candidate, types, strict=True))
    raise RegistrationError(
        f"{label}: the '# type:' comment lists {len(types)} argument type(s) but the function "
        f"has {len(names)} parameter(s) ({', '.join(names)})"
    )


def find_context(
    signature: inspect.Signature,
    types: dict[str, Any],
    context_types: tuple[ClassOrLazy, ...],
    label: str,
) -> str | None:
    # A lazy class not loaded yet can be no parameter's type (a string annotation naming it loaded it).
    classes = loaded_classes(context_types)
    by_type = [n for n in signature.parameters if _is_context_type(types.get(n), classes)]
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

