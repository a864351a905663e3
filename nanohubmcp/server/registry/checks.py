"""What is worth telling a user about a tool they just registered.

The server refuses one thing (a reserved name) and warns about three that still work but mislead
a model: a tool with no description (the model sees only its name), a parameter without a type or
annotated with a class that has no JSON Schema form (its schema is ``{}``, so any JSON value is
accepted; ``Any`` and ``object`` ask for that and are not warned about), and a name that now points at a different
function than before (another function, or the same one with a different signature). Re-running
the same definition, as a notebook cell does, is not a replacement worth a warning.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from ...errors import RegistrationError
from .components import Tool

if TYPE_CHECKING:
    from ...schema.signature import Signature

RESERVED_TOOL_NAMES: Final = frozenset({"get_job_result"})
"""Tool names the server provides itself (``get_job_result`` polls ``@async_tool`` jobs)."""

_DESCRIBING_KEYS: Final = frozenset({"description", "title", "default", "examples"})

SAME_FOR_EVERY_CALLER: Final = "same_for_every_caller"
"""The attribute a function the library made for a tool of another format sets True (a Rappture tool's
``RapptureCall``): the ``Context`` it takes is the library's, to run the tool's program, and its result depends
on its arguments alone, so ``cache='shared'`` of it is not warned about (:func:`shared_cache_warning`)."""


def shared_cache_warning(tool: Tool, fn: Callable[..., Any], cache: object) -> str | None:
    """The warning for a ``cache='shared'`` tool whose function takes a Context (it could read ``ctx.principal``,
    and one caller's result is every caller's), unless ``fn`` says its result is the same for every caller
    (:data:`SAME_FOR_EVERY_CALLER`: a wrapper the library made, whose Context the user cannot act on); else None."""
    if cache != "shared" or not tool.signature.context_param or getattr(fn, SAME_FOR_EVERY_CALLER, False) is True:
        return None
    return (f"tool '{tool.name}' has cache='shared' and takes a Context: one caller's result is every caller's, "
            "so it must not depend on who calls (ctx.principal)")


def refuse_reserved(name: str, fn: Callable[..., Any]) -> None:
    """Raise ``RegistrationError`` when ``name`` is reserved and ``fn`` is not the server's own
    (the built-in tools are defined in ``nanohubmcp.server``)."""
    module = getattr(inspect.unwrap(fn), "__module__", None) or ""
    if name in RESERVED_TOOL_NAMES and not module.startswith("nanohubmcp.server."):
        raise reserved_name(name)


def reserved_name(name: str) -> RegistrationError:
    """The refusal of a user's tool named ``name``, one of :data:`RESERVED_TOOL_NAMES` (registering it, or
    exporting a notebook cell that would)."""
    return RegistrationError(
        f"tool '{name}': the name is reserved by the server, which answers it to poll the jobs of "
        "@async_tool tools; choose another name, e.g. name='my_job_result'", option="name"
    )


def untyped_parameters(tool: Tool) -> list[str]:
    """Parameters whose generated schema accepts anything (no annotation, or one with no JSON form)."""
    if tool.validator is None or tool.input_schema is not tool.signature.input_schema:
        return []  # an explicit input_schema says what it accepts
    properties = tool.input_schema.get("properties", {})
    return [name for name, schema in properties.items() if not set(schema) - _DESCRIBING_KEYS]


_ANYTHING: Final = frozenset({"Any", "typing.Any", "object"})
"""Annotations (as text) that ask for any value on purpose: nothing to warn about."""


def _annotations(tool: Tool) -> dict[str, object]:
    """The parameters' annotations as written (a class, a typing form, or text), empty ones left out."""
    try:
        parameters = inspect.signature(tool.fn).parameters.values()
    except (TypeError, ValueError):
        return {}
    return {p.name: p.annotation for p in parameters if p.annotation is not inspect.Parameter.empty}


def _type_name(annotation: object) -> str:
    if isinstance(annotation, str):
        return annotation.strip("'\"")
    if isinstance(annotation, type):
        return annotation.__qualname__
    return str(annotation).removeprefix("typing.")


def unpublished_defaults(label: str, fn: Callable[..., Any], signature: Signature) -> list[str]:
    """One warning for each parameter of ``fn`` whose default its generated schema (``signature``'s) leaves
    out, JSON having no form for it (nan, an infinity, an int of over 4,300 digits), then one for each field
    of a record a parameter takes (a dataclass, NamedTuple or pydantic model: ``signature.unpublished``) whose
    default is left out so, or as one of none of its types: the function's (or the record's) own default still
    applies. ``label`` names the component (``"tool 'fit'"``).

    .. versionchanged:: 1.0
       A record field's default is warned of too (it was left out without a word); a pydantic model field's too (its
       schema held it: a default of another type was published, one JSON has no form for refused)."""
    from ...schema.default_check import withheld_default
    from ...schema.fragments import left_out_default

    try:
        parameters = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return []
    found = []
    for name in signature.param_names:
        param = parameters.get(name)
        if param is None or param.default is inspect.Parameter.empty:
            continue
        properties = signature.input_schema.get("properties")
        schema = properties.get(name) if isinstance(properties, dict) else None
        why = (withheld_default(schema, param.default) if isinstance(schema, dict)
               else left_out_default(param.default))
        if why:
            found.append(
                f"{label}: the default of parameter {name!r} is not in the published schema ({why}): "
                "clients are not told it; one that leaves the argument out still gets it")
    for name, field, why in signature.unpublished:
        found.append(
            f"{label}: the default of field {field!r} (parameter {name!r}) is not in the published schema ({why}): "
            "clients are not told it; one that leaves the field out still gets it")
    return found


def _untyped_warnings(tool: Tool) -> list[str]:
    """Parameters left without a type, then each annotated with a type that has no JSON Schema form."""
    annotations = _annotations(tool)
    bare, unknown = [], []
    for name in untyped_parameters(tool):
        annotation = annotations.get(name, inspect.Parameter.empty)
        if annotation is inspect.Parameter.empty:
            bare.append(name)
        elif not (annotation is typing.Any or annotation is object or str(annotation) in _ANYTHING):
            unknown.append((name, _type_name(annotation)))
    found = []
    if bare:
        names = ", ".join(repr(n) for n in bare)
        found.append(
            f"tool '{tool.name}': parameter{'s' * (len(bare) > 1)} {names} "
            f"{'have' if len(bare) > 1 else 'has'} no type, so any JSON value is accepted; "
            "annotate it (e.g. x: float)"
        )
    for name, type_name in unknown:
        found.append(
            f"tool '{tool.name}': parameter {name!r} is annotated {type_name}, which has no JSON Schema form, "
            "so any JSON value is accepted and passed to the function as is; use a type the schema describes "
            "(float, str, list[float], dict[str, float], a dataclass, TypedDict, NamedTuple or Enum)"
        )
    return found


def _signature(fn: Callable[..., Any]) -> str:
    try:
        return str(inspect.signature(inspect.unwrap(fn)))
    except (TypeError, ValueError):
        return ""


def replaced(tool: Tool, previous: Tool | None, *, edited: bool = False) -> str | None:
    """How ``tool`` differs from the ``previous`` tool of its name, or None when it is the same one
    (``edited``: the same function edited, a notebook cell run again, whose signature may change). A function is
    named by its module and qualified name, a tool of another format by its ``described`` text (``the Rappture
    tool PATH``, ``the Sim2L notebook PATH``)."""
    if previous is None:
        return None
    old, new = inspect.unwrap(previous.fn), inspect.unwrap(tool.fn)
    old_name = f"{getattr(old, '__module__', '?')}.{getattr(old, '__qualname__', '?')}"
    new_name = f"{getattr(new, '__module__', '?')}.{getattr(new, '__qualname__', '?')}"
    if old_name != new_name:  # another function, not the same one edited: perhaps meant as a second tool
        return (f"it was {getattr(old, 'described', None) or old_name}, now it is "
                f"{getattr(new, 'described', None) or new_name} (to serve both, give one of them another name)")
    if previous.input_schema != tool.input_schema and not edited:
        return f"the signature changed from {_signature(old)} to {_signature(new)}"
    return None


def tool_warnings(tool: Tool, previous: Tool | None, *, edited: bool = False) -> list[str]:
    """The warnings worth showing for registering ``tool`` over ``previous`` (if any); ``edited``:
    see :func:`replaced`."""
    found = []
    if not (tool.description or "").strip():
        found.append(
            f"tool '{tool.name}' has no description: the model sees only its name; add a docstring or description='...'"
        )
    found.extend(_untyped_warnings(tool))
    if tool.input_schema is tool.signature.input_schema:  # (an input_schema given holds the author's defaults)
        found.extend(unpublished_defaults(f"tool '{tool.name}'", tool.fn, tool.signature))
    if tool.output_schema and tool.output_schema.get("type") != "object":
        found.append(
            f"tool '{tool.name}' has an output_schema whose type is not 'object': clients of protocol versions "
            "before 2026-07-28 take only an object schema, so it is listed to 2026-07-28 clients only; describe "
            "the result as an object (a list's as {\"result\": [...]}) to list it to every client")
    change = replaced(tool, previous, edited=edited)
    if change:
        found.append(f"tool '{tool.name}' replaces a different function of that name: {change}")
    return found
