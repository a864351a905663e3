"""PEP 484 type comments (both forms) and the context parameter, as the seed examples write them."""

from __future__ import annotations

import pytest

from nanohubmcp.errors import RegistrationError
from nanohubmcp.schema import describe_function


class Context:
    """Stand-in for the server's context class (the server passes its own)."""


def describe(fn, **kwargs):
    return describe_function(fn, kind="tool", name=fn.__name__, context_types=(Context,), **kwargs)


def wave_properties(frequency, wavelength=None, medium_speed=None):  # type: (float, float, float) -> dict
    """Wave properties from any two of frequency, wavelength and speed."""
    return {}


def power(ctx, base, exponent):  # type: (Context, float, float) -> float
    """Raise base to exponent."""
    return base**exponent


def power_without_ctx_slot(ctx, base, exponent):  # type: (float, float) -> float
    return base**exponent


def next_line_form(count, names):
    # type: (int, List[str]) -> None
    """Docstring after the comment."""


def decoy(a):
    # type: (int) -> int
    """Looks like a type comment:  # type: (str) -> str"""
    return a


def only_the_docstring_has_one(a):
    """Not a type comment:  # type: (str) -> str"""
    return a


def per_argument(
    a,  # type: int
    b,  # type: Optional[str]
    c=(),  # type: Tuple[float, ...]
):
    # type: (...) -> None
    pass


def per_argument_last_without_comma(a,  # type: bool
                                    b  # type: Dict[str, int]
                                    ):  # fmt: skip
    pass


def ellipsis_form(a, b):
    # type: (...) -> int
    return 0


def starred(a, **options):  # type: (int, **str) -> None
    pass


def unknown_names(a, b):  # type: (np.ndarray, int) -> None
    pass


def annotation_wins(a: str, b):  # type: (int, int) -> None
    pass


def miscounted(a, b, c):  # type: (int, int) -> None
    pass


def with_trailing_comment(a):  # type: (int) -> int  # a remark after the type
    return a


class Calculator:
    def scale(self, value, factor=2):
        # type: (float, int) -> float
        return value * factor

    def shift(self, value):
        # type: (Calculator, float) -> float
        return value


def test_function_form_with_none_defaults_gives_nullable_optional_numbers() -> None:
    schema = describe(wave_properties).input_schema
    assert schema["properties"] == {
        "frequency": {"type": "number"},
        "wavelength": {"type": ["number", "null"], "default": None},
        "medium_speed": {"type": ["number", "null"], "default": None},
    }
    assert schema["required"] == ["frequency"]


def test_context_slot_in_the_comment_is_counted_and_hidden() -> None:
    signature = describe(power)
    assert signature.context_param == "ctx"
    assert signature.param_names == ("base", "exponent")
    assert signature.input_schema["properties"] == {
        "base": {"type": "number"},
        "exponent": {"type": "number"},
    }


def test_context_slot_may_be_left_out_of_the_comment() -> None:
    signature = describe(power_without_ctx_slot)
    assert signature.context_param == "ctx"
    assert signature.input_schema["properties"]["base"] == {"type": "number"}


def test_comment_on_the_line_after_def_uses_typing_names_without_imports() -> None:
    properties = describe(next_line_form).input_schema["properties"]
    assert properties == {
        "count": {"type": "integer"},
        "names": {"type": "array", "items": {"type": "string"}},
    }


def test_text_inside_the_docstring_is_not_a_type_comment() -> None:
    assert describe(decoy).input_schema["properties"]["a"] == {"type": "integer"}
    assert describe(only_the_docstring_has_one).input_schema["properties"]["a"] == {}


def test_per_argument_comments_are_read() -> None:
    properties = describe(per_argument).input_schema["properties"]
    assert properties == {
        "a": {"type": "integer"},
        "b": {"type": ["string", "null"]},
        "c": {"type": "array", "items": {"type": "number"}, "default": []},
    }
    properties = describe(per_argument_last_without_comma).input_schema["properties"]
    assert properties == {
        "a": {"type": "boolean"},
        "b": {"type": "object", "additionalProperties": {"type": "integer"}},
    }


def test_ellipsis_form_leaves_arguments_untyped() -> None:
    assert describe(ellipsis_form).input_schema["properties"] == {"a": {}, "b": {}}


def test_starred_entries_type_var_keyword() -> None:
    signature = describe(starred)
    assert signature.var_keyword is True
    assert signature.input_schema["additionalProperties"] == {"type": "string"}


def test_unresolvable_names_fall_back_to_any() -> None:
    assert describe(unknown_names).input_schema["properties"] == {"a": {}, "b": {"type": "integer"}}


def test_annotations_take_precedence_over_comments() -> None:
    assert describe(annotation_wins).input_schema["properties"] == {
        "a": {"type": "string"},
        "b": {"type": "integer"},
    }


def test_trailing_comment_after_the_type_comment_is_ignored() -> None:
    assert describe(with_trailing_comment).input_schema["properties"]["a"] == {"type": "integer"}


def test_a_comment_that_fits_no_parameter_list_is_a_registration_error() -> None:
    with pytest.raises(RegistrationError, match=r"tool 'miscounted': the '# type:' comment lists 2"):
        describe(miscounted)


def test_methods_may_omit_or_include_self() -> None:
    calculator = Calculator()
    assert describe(calculator.scale).input_schema["properties"] == {
        "value": {"type": "number"},
        "factor": {"type": "integer", "default": 2},
    }
    assert describe(calculator.shift).input_schema["properties"] == {"value": {"type": "number"}}
    unbound = describe(Calculator.scale)
    assert unbound.param_names == ("value", "factor")


def test_context_found_by_annotation_under_any_name() -> None:
    def tool(a: int, request: Context) -> int:
        return a

    def optional_tool(a: int, request: Context | None = None) -> int:
        return a

    assert describe(tool).context_param == "request"
    assert describe(optional_tool).context_param == "request"
    assert describe(optional_tool).param_names == ("a",)


def test_context_found_by_name_unless_typed_as_data() -> None:
    def untyped(context, a: int) -> int:
        return a

    def data(context: str, a: int) -> int:
        return a

    assert describe(untyped).context_param == "context"
    assert describe(untyped).param_names == ("a",)
    assert describe(data).context_param is None
    assert describe(data).param_names == ("context", "a")
    assert describe_function(untyped, kind="tool", name="untyped").context_param == "context"


def test_two_context_parameters_are_refused() -> None:
    def both(ctx: Context, other: Context) -> None:
        pass

    with pytest.raises(RegistrationError, match="tool 'both': only one parameter"):
        describe(both)


def test_functions_without_source_still_work() -> None:
    namespace: dict[str, object] = {}
    exec("def dynamic(a, b):  # type: (int, int) -> int\n    return a + b\n", namespace)
    signature = describe(namespace["dynamic"])
    assert signature.input_schema["properties"] == {"a": {}, "b": {}}


def tool(**options):
    """A decorator factory whose arguments hold type-comment look-alikes."""

    def mark(fn):
        fn.options = options
        return fn

    return mark


@tool(description="Echo. Not a type comment:  # type: (str) -> str")
def decorated_decoy(a):  # type: (int) -> int
    """Echo  # type: (str) -> str"""
    return a


def test_decoys_in_decorators_and_docstrings_do_not_beat_the_real_comment() -> None:
    assert describe(decorated_decoy).input_schema["properties"]["a"] == {"type": "integer"}


def test_context_named_in_a_comment_resolves_through_context_types(tmp_path, monkeypatch) -> None:
    # A module that never imports Context, as a user's script written from the README would.
    (tmp_path / "user_tools.py").write_text(
        "def scaled(request, x):  # type: (Context, float) -> float\n"
        "    return x\n"
        "\n"
        "def plain(request, x):  # type: (Context, float) -> float\n"
        "    return x\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import user_tools

    signature = describe(user_tools.scaled)
    assert signature.context_param == "request"
    assert signature.input_schema["properties"] == {"x": {"type": "number"}}
    # Without context types the unknown name means "any", so "request" is an argument.
    plain = describe_function(user_tools.plain, kind="tool", name="plain")
    assert plain.context_param is None
    assert plain.param_names == ("request", "x")


def test_type_comments_work_in_notebook_cells() -> None:
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell()
    result = shell.run_cell(
        "def power(ctx, base, exponent):  # type: (Context, float, float) -> float\n"
        '    """Raise base to exponent."""\n'
        "    return base ** exponent\n"
        "\n"
        "def wave(frequency, wavelength=None):\n"
        "    # type: (float, float) -> dict\n"
        "    return {}\n"
    )
    assert result.success
    power = describe(shell.user_ns["power"])
    assert power.context_param == "ctx"
    assert power.input_schema["properties"] == {"base": {"type": "number"}, "exponent": {"type": "number"}}
    assert power.description == "Raise base to exponent."
    wave = describe(shell.user_ns["wave"])
    assert wave.input_schema["properties"]["wavelength"] == {"type": ["number", "null"], "default": None}
