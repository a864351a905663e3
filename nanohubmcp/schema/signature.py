"""The :class:`Signature` record of a described function, and the coercion its calls run.

Owns what a call does with a described function's arguments: :meth:`Signature.call_arguments`
(unknown names refused, the context parameter filled) and the compiled per-parameter coercion
(``coerce``: JSON values -> Enum members, dataclasses, tuples, dates...). Building a
``Signature`` from a function is :func:`nanohubmcp.schema.generate.describe_function`'s; the
per-type coercers are :mod:`nanohubmcp.schema.coerce`'s. On every ``tools/call``'s path.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import FrozenInstanceError
from typing import Any

from nanohubmcp.errors import InvalidArguments
from nanohubmcp.schema import coerce as co
from nanohubmcp.schema.paths import format_path, invalid_arguments

__all__ = ["Signature", "make_coerce"]


def _identity(arguments: dict[str, Any]) -> dict[str, Any]:
    return arguments


class _Never:
    """A type no argument value has (the ``source``/``target`` of a coercer without a shortcut)."""

    def __init__(self, value: object) -> None:  # never made: a value would have to be one first
        raise AssertionError(value)


_FIELDS = ("input_schema", "description", "context_param", "param_names", "var_keyword", "coerce", "prompt_arguments")


class Signature:
    """Everything the server needs to publish and call one function.

    Immutable, compared and shown by its seven fields, as the ``@dataclass(frozen=True)`` it was;
    written out because every server builds its tools' signatures before its first answer and a
    frozen dataclass compiles six methods at import (~4 M instructions of a cold start).

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
        unpublished: ``(parameter, field, why)`` for each field of a record a parameter takes (a dataclass or
            NamedTuple; ``field`` as ``"Settings.rate"``) whose default the schema leaves out,
            JSON having no form for it (``why``: ``"nan has no JSON form"``); the registration warns of each.
            Not compared or shown (it follows from the function).
    """

    __match_args__ = (
        "input_schema", "description", "context_param", "param_names", "var_keyword", "coerce", "prompt_arguments"
    )

    input_schema: dict[str, Any]
    description: str | None
    context_param: str | None
    param_names: tuple[str, ...]
    var_keyword: bool
    coerce: Callable[[dict[str, Any]], dict[str, Any]]
    prompt_arguments: list[dict[str, Any]]
    known: frozenset[str]
    """:attr:`param_names` as a set (checked on every call)."""
    unpublished: tuple[tuple[str, str, str], ...]

    def __init__(
        self,
        input_schema: dict[str, Any],
        description: str | None,
        context_param: str | None,
        param_names: tuple[str, ...],
        var_keyword: bool,
        coerce: Callable[[dict[str, Any]], dict[str, Any]],
        prompt_arguments: list[dict[str, Any]],
        unpublished: tuple[tuple[str, str, str], ...] = (),
    ) -> None:
        put = object.__setattr__  # frozen: set once, here
        put(self, "input_schema", input_schema)
        put(self, "description", description)
        put(self, "context_param", context_param)
        put(self, "param_names", param_names)
        put(self, "var_keyword", var_keyword)
        put(self, "coerce", coerce)
        put(self, "prompt_arguments", prompt_arguments)
        put(self, "known", frozenset(param_names))
        put(self, "unpublished", unpublished)

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in _FIELDS)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Signature)
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())  # as the frozen dataclass: TypeError, the schema being a dict

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in _FIELDS)
        return f"Signature({shown})"

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


def make_coerce(
    coercers: dict[str, co.Coercer],
    extra: co.Coercer | None,
    known: tuple[str, ...],
    kind: str,
    name: str,
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """``coerce(validated_arguments) -> call_arguments`` for :attr:`Signature.coerce`: ``coercers``
    per parameter name in ``known``, ``extra`` for the ``**kwargs`` ones; the identity when none."""
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
        except OverflowError:  # an integer with hundreds of digits for a float parameter (1e400 is refused earlier)
            where = format_path("arguments", (key,))
            too_large = f"{where}: the number is too large for a float (at most about 1.8e308)"
            raise invalid_arguments(kind, name, [too_large]) from None
        return out

    return coerce


def _step(c: co.Coercer) -> tuple[type, Callable[[Any], Any], type, co.Coercer]:
    shortcut = co.SHORTCUTS.get(c)
    if shortcut is None:
        return _Never, _Never, _Never, c  # no value is a _Never: always the coercer
    source, builtin, target = shortcut
    return source, builtin, target, c
