"""Misuse fails at registration time, with the component named in the message."""

from __future__ import annotations

import functools
import inspect
import math

import pytest

from nanohubmcp.errors import RegistrationError
from nanohubmcp.schema import describe_function

_SENTINEL = object()


def test_lambda_without_a_name_is_refused() -> None:
    with pytest.raises(RegistrationError, match="lambda has no usable name"):
        describe_function(lambda x: x, kind="tool", name="<lambda>")
    with pytest.raises(RegistrationError, match="tool: a lambda"):
        describe_function(lambda x: x, kind="tool", name="")


def test_lambda_with_an_explicit_name_is_fine() -> None:
    signature = describe_function(lambda x, y=2: x, kind="tool", name="first")
    assert signature.param_names == ("x", "y")
    assert signature.input_schema["required"] == ["x"]


def test_star_args_are_refused() -> None:
    def spread(*values: float) -> float:
        return sum(values)

    with pytest.raises(RegistrationError, match=r"tool 'spread': \*values cannot receive arguments"):
        describe_function(spread, kind="tool", name="spread")


def test_positional_only_parameters_are_refused() -> None:
    def positional(a: int, /, b: int) -> int:
        return a + b

    with pytest.raises(RegistrationError, match="prompt 'positional': parameter 'a' is positional-only"):
        describe_function(positional, kind="prompt", name="positional")


def test_non_callables_are_refused() -> None:
    with pytest.raises(RegistrationError, match="resource 'r': 42 is not callable"):
        describe_function(42, kind="resource", name="r")  # type: ignore[arg-type]


def test_wrapper_without_functools_wraps_is_refused_and_with_it_is_fine() -> None:
    def add(a: int, b: int) -> int:
        return a + b

    def careless(fn):
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs)

        return wrapper

    def careful(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs)

        return wrapper

    with pytest.raises(RegistrationError, match=r"functools\.wraps"):
        describe_function(careless(add), kind="tool", name="add")
    assert describe_function(careful(add), kind="tool", name="add").input_schema["properties"] == {
        "a": {"type": "integer"},
        "b": {"type": "integer"},
    }


def test_partials_expose_only_the_remaining_parameters() -> None:
    def scale(value: float, factor: float) -> float:
        """Scale a value."""
        return value * factor

    signature = describe_function(functools.partial(scale, factor=3.0), kind="tool", name="triple")
    assert signature.param_names == ("value", "factor")
    assert signature.input_schema["properties"]["factor"]["default"] == 3.0
    assert signature.description == "Scale a value."


def test_builtins_without_a_signature_are_refused_cleanly() -> None:
    try:
        inspect.signature(min)
    except ValueError:
        pass
    else:  # pragma: no cover - depends on the Python version
        pytest.skip("min() has a signature on this Python")
    with pytest.raises(RegistrationError, match="tool 'min': cannot read the signature"):
        describe_function(min, kind="tool", name="min")


def test_defaults_are_published_only_when_json_safe() -> None:
    """A default of a type JSON has no form for is left out, and so is a number JSON cannot write (nan, inf;
    review23 R23-L3: the registration warns of it, the app still starts)."""
    def defaults(
        a: float = math.nan,
        b: float = math.inf,
        c: object = _SENTINEL,
        d: tuple[int, int] = (1, 2),
        e: str = "x",
        f: dict[str, list[int]] = {"k": [1]},  # noqa: B006
        g: set[int] = frozenset({1}),
    ) -> None:
        pass

    properties = describe_function(defaults, kind="tool", name="defaults").input_schema["properties"]
    assert "default" not in properties["a"]
    assert "default" not in properties["b"]
    assert "default" not in properties["c"]
    assert properties["d"]["default"] == [1, 2]
    assert properties["e"]["default"] == "x"
    assert properties["f"]["default"] == {"k": [1]}
    assert "default" not in properties["g"]


def test_untyped_list_with_none_default_is_nullable_on_every_python() -> None:
    def tagged(tags: list = None) -> None:  # noqa: RUF013 - the implicit Optional is the point
        pass

    schema = describe_function(tagged, kind="tool", name="tagged").input_schema
    assert schema["properties"]["tags"] == {"type": ["array", "null"], "default": None}
    assert schema["required"] == []


def test_string_annotations_that_cannot_resolve_fall_back_per_parameter() -> None:
    class Local:
        pass

    def uses_local(a: Local, b: int) -> None:
        pass

    properties = describe_function(uses_local, kind="tool", name="uses_local").input_schema["properties"]
    assert properties == {"a": {}, "b": {"type": "integer"}}


def test_self_and_cls_are_not_arguments() -> None:
    class Tools:
        def method(self, a: int) -> int:
            return a

        @classmethod
        def factory(cls, b: str) -> str:
            return b

    assert describe_function(Tools.method, kind="tool", name="m").param_names == ("a",)
    assert describe_function(Tools().method, kind="tool", name="m").param_names == ("a",)
    assert describe_function(Tools.factory, kind="tool", name="f").param_names == ("b",)


def test_var_keyword_opens_the_schema() -> None:
    def anything(a: int, **rest) -> None:
        pass

    signature = describe_function(anything, kind="tool", name="anything")
    assert signature.var_keyword is True
    assert "additionalProperties" not in signature.input_schema
    assert signature.param_names == ("a",)
