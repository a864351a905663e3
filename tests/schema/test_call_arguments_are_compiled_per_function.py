"""``Signature.call_arguments``: a function's keyword arguments from validated JSON, with what can be
decided at registration decided there — unknown arguments refused by name, the context parameter
filled by the server only, a ``float`` parameter given a JSON integer gets a float and an ``int``
parameter given an integral JSON number an int (a builtin, in place), any other value of those
parameters as the coercer always left it."""

from __future__ import annotations

import enum

import pytest

from nanohubmcp.errors import InvalidArguments
from nanohubmcp.schema import describe_function


class Level(enum.IntEnum):
    LOW = 1


class Precise(float):
    """A float subclass a Python caller (``server.call``) may pass."""


def measure(x: float, n: int, label: str = "") -> str:
    return f"{x} {n} {label}"


def test_numbers_become_what_the_parameters_say() -> None:
    signature = describe_function(measure, kind="tool", name="measure")
    kwargs = signature.call_arguments({"x": 2, "n": 5.0, "label": "a"}, kind="tool", name="measure")
    assert kwargs == {"x": 2.0, "n": 5, "label": "a"}
    assert type(kwargs["x"]) is float
    assert type(kwargs["n"]) is int
    kept = signature.call_arguments({"x": 2.5, "n": 3}, kind="tool", name="measure")
    assert type(kept["x"]) is float
    assert type(kept["n"]) is int
    precise, level = Precise(1.5), Level.LOW
    odd = signature.call_arguments({"x": precise, "n": level}, kind="tool", name="measure")
    assert odd["x"] is precise  # a float already: kept as given
    assert odd["n"] is level  # an int already: kept as given


def test_unknown_arguments_are_refused_by_name() -> None:
    signature = describe_function(measure, kind="tool", name="measure")
    with pytest.raises(InvalidArguments, match=r"unknown argument\(s\) extra, other"):
        signature.call_arguments({"x": 1.0, "n": 1, "other": 1, "extra": 2}, kind="tool", name="measure")


def test_the_context_parameter_is_filled_by_the_server_only() -> None:
    def with_context(a: int, ctx: object = None) -> int:
        return a

    def open_ended(a: int, ctx: object = None, **rest: int) -> int:
        return a

    signature = describe_function(with_context, kind="tool", name="with_context")
    marker = object()
    assert signature.call_arguments({"a": 1}, marker, kind="tool", name="with_context") == {"a": 1, "ctx": marker}
    with pytest.raises(InvalidArguments, match=r"unknown argument\(s\) ctx"):
        signature.call_arguments({"a": 1, "ctx": 2}, marker, kind="tool", name="with_context")
    signature = describe_function(open_ended, kind="tool", name="open_ended")
    with pytest.raises(InvalidArguments, match="'ctx' is supplied by the server"):
        signature.call_arguments({"a": 1, "ctx": 2}, marker, kind="tool", name="open_ended")


def test_keyword_arguments_take_what_kwargs_accepts() -> None:
    def loose(a: int, **rest: float) -> None:
        pass

    signature = describe_function(loose, kind="tool", name="loose")
    kwargs = signature.call_arguments({"a": 2.0, "b": 3}, kind="tool", name="loose")
    assert kwargs == {"a": 2, "b": 3.0}
    assert type(kwargs["b"]) is float
