"""Descriptions come from Google, NumPy and reST docstrings; parameter sections leave the description."""

from __future__ import annotations

from typing import Annotated

import pytest

from nanohubmcp.schema import describe_function


def google(frequency: float, wavelength: float = 1.0, **extra: str) -> float:
    """Compute the wave speed.

    Uses v = f * lambda.

    Args:
        frequency (float): oscillations per second,
            in Hz.
        wavelength: distance between crests, in m.
        **extra: ignored labels.

    Returns:
        The speed in m/s.
    """
    return frequency * wavelength


def numpy_style(frequency: float, wavelength: float = 1.0) -> float:
    """Compute the wave speed.

    Parameters
    ----------
    frequency : float
        Oscillations per second, in Hz.
    wavelength : float, optional
        Distance between crests, in m.

    Returns
    -------
    float
        The speed in m/s.
    """
    return frequency * wavelength


def rest_style(frequency: float, wavelength: float = 1.0) -> float:
    """Compute the wave speed.

    :param frequency: oscillations per second, in Hz.
    :type frequency: float
    :param float wavelength: distance between crests,
        in m.
    :returns: the speed in m/s.
    """
    return frequency * wavelength


def shared_numpy_entry(x: float, y: float) -> float:
    """Add.

    Parameters
    ----------
    x, y : float
        The numbers.
    """
    return x + y


def annotated_wins(x: Annotated[float, "from Annotated"]) -> float:
    """Echo.

    Args:
        x: from the docstring
    """
    return x


def no_doc(x: int) -> int:
    return x


@pytest.mark.parametrize("fn", [google, numpy_style, rest_style], ids=lambda f: f.__name__)
def test_parameter_descriptions_come_from_each_style(fn) -> None:
    properties = describe_function(fn, kind="tool", name=fn.__name__).input_schema["properties"]
    assert properties["frequency"]["description"].lower().startswith("oscillations per second")
    assert "Hz" in properties["frequency"]["description"]
    assert properties["wavelength"]["description"].lower().startswith("distance between crests")


def test_google_description_keeps_other_sections() -> None:
    description = describe_function(google, kind="tool", name="google").description
    assert description == "Compute the wave speed.\n\nUses v = f * lambda.\n\nReturns:\n    The speed in m/s."


def test_numpy_description_drops_only_parameters() -> None:
    description = describe_function(numpy_style, kind="tool", name="numpy_style").description
    assert description == "Compute the wave speed.\n\nReturns\n-------\nfloat\n    The speed in m/s."


def test_rest_description_drops_param_and_type_fields() -> None:
    description = describe_function(rest_style, kind="tool", name="rest_style").description
    assert description == "Compute the wave speed.\n\n:returns: the speed in m/s."


def test_one_numpy_entry_can_describe_several_parameters() -> None:
    properties = describe_function(shared_numpy_entry, kind="tool", name="add").input_schema["properties"]
    assert properties["x"]["description"] == properties["y"]["description"] == "The numbers."


def test_annotated_description_beats_the_docstring() -> None:
    properties = describe_function(annotated_wins, kind="tool", name="echo").input_schema["properties"]
    assert properties["x"]["description"] == "from Annotated"


def test_missing_docstring_gives_no_description() -> None:
    assert describe_function(no_doc, kind="tool", name="no_doc").description is None


def test_prompt_arguments_carry_descriptions_and_required_flags() -> None:
    arguments = describe_function(google, kind="prompt", name="google").prompt_arguments
    assert arguments == [
        {"name": "frequency", "description": "oscillations per second,\nin Hz.", "required": True},
        {"name": "wavelength", "description": "distance between crests, in m.", "required": False},
    ]


def test_callable_objects_and_classes_are_described() -> None:
    class Scaler:
        """Scale numbers."""

        def __call__(self, value: float, factor: float = 2.0) -> float:
            """Multiply.

            Args:
                value: the number
            """
            return value * factor

    signature = describe_function(Scaler(), kind="tool", name="scale")
    assert signature.description == "Multiply."
    assert signature.input_schema["properties"]["value"] == {"type": "number", "description": "the number"}

    class Build:
        """Build a thing.

        Args:
            size: how big
        """

        def __init__(self, size: int) -> None:
            self.size = size

    signature = describe_function(Build, kind="tool", name="build")
    assert signature.description == "Build a thing."
    assert signature.input_schema["properties"] == {"size": {"type": "integer", "description": "how big"}}


def test_a_dataclass_registered_itself_has_no_generated_description() -> None:
    import dataclasses

    @dataclasses.dataclass
    class Sample:
        size: int

    signature = describe_function(Sample, kind="tool", name="sample")
    assert signature.description is None
    assert signature.input_schema["properties"] == {"size": {"type": "integer"}}

    class Documented:
        def __init__(self, size: int) -> None:
            """Make a sample.

            Args:
                size: in nm
            """

    signature = describe_function(Documented, kind="tool", name="documented")
    assert signature.description == "Make a sample."
    assert signature.input_schema["properties"]["size"]["description"] == "in nm"
