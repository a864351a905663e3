"""A parameter default JSON cannot carry (nan, an infinity, an int of over 4,300 digits, anywhere in it) does not
stop the app from starting (review23 R23-L3: ``threshold: float = math.nan`` became a RegistrationError): it is
left out of the published schema, with one RegistrationWarning naming the tool, the parameter and why, and the
function's own default still applies when a client leaves the argument out. A record field's default (a dataclass's,
a NamedTuple's) is left out with the same warning, naming the field. A hand-written
``input_schema`` holding nan stays refused."""

from __future__ import annotations

import dataclasses
import inspect
import math
import warnings
from typing import Any, NamedTuple

import numpy as np
import pytest

from nanohubmcp import MCPServer
from nanohubmcp.errors import RegistrationError, RegistrationWarning
from nanohubmcp.testing import client_session

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(60)]


def fit(data: list[float], threshold: float = math.nan) -> str:
    """Fit; NaN chooses a threshold."""
    return f"{len(data)} {threshold}"


def bounds(low: list[float] = [1.0, -math.inf]) -> str:  # noqa: B006 - the default under test
    """The bounds."""
    return repr(low)


def numpy_nan(rate: float = np.float64("nan")) -> str:
    """rate back."""
    return repr(float(rate))


def huge(n: int = 10**5000) -> str:
    """n's digits."""
    return str(n.bit_length())


def huge_in_dict(n: dict[str, int] = {"a": 10**5000}) -> str:  # noqa: B006 - the default under test
    """How many."""
    return str(len(n))


CASES: list[tuple[Any, str, str, str]] = [
    (fit, "threshold", "nan has no JSON form", "0 nan"),
    (bounds, "low", "-inf at default[1] has no JSON form", "[1.0, -inf]"),
    (numpy_nan, "rate", "nan has no JSON form", "nan"),
    (huge, "n", "an int of over 4,300 digits has no JSON form", str((10**5000).bit_length())),
    (huge_in_dict, "n", "an int of over 4,300 digits at default.a has no JSON form", "1"),
]


@pytest.mark.parametrize(("fn", "param", "why", "answer"), CASES, ids=[c[0].__name__ for c in CASES])
async def test_the_default_is_left_out_with_one_warning_and_still_applies(fn: Any, param: str, why: str,
                                                                         answer: str) -> None:
    server = MCPServer("defaults")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        server.tool()(fn)
    said = [str(w.message) for w in caught if issubclass(w.category, RegistrationWarning)]
    assert said == [f"tool '{fn.__name__}': the default of parameter {param!r} is not in the published schema "
                    f"({why}): clients are not told it; one that leaves the argument out still gets it"]
    arguments = {"data": []} if fn is fit else {}
    async with client_session(server) as session:
        listed = (await session.list_tools()).tools[0]
        assert param in listed.input_schema["properties"]
        assert "default" not in listed.input_schema["properties"][param]
        assert param not in listed.input_schema.get("required", [])
        result = await session.call_tool(fn.__name__, arguments)
    assert not result.is_error, result
    assert result.content[0].text == answer  # type: ignore[union-attr]


@dataclasses.dataclass
class Settings:
    """Run settings."""

    rate: float = math.nan
    steps: int = 10
    seed: int = 10**5000


class Bounds(NamedTuple):
    """Bounds."""

    low: float = -math.inf
    high: float = 1.0


@dataclasses.dataclass
class Study:
    """A study: its settings, and a record met again (warned of once)."""

    first: Settings
    again: Settings


def run(s: Settings) -> str:
    """Runs."""
    return f"{s.rate} {s.seed.bit_length()}"


def clip(b: Bounds) -> str:
    """Clips."""
    return repr(b.low)


def study(s: Study, n: int = 1) -> str:
    """Studies."""
    return repr(s.again.rate)


RECORDS: list[tuple[Any, dict[str, str], dict[str, Any], dict[str, Any], str]] = [
    (run, {"Settings.rate": "nan has no JSON form", "Settings.seed": "an int of over 4,300 digits has no JSON form"},
     {"steps": 10}, {"s": {}}, f"nan {(10**5000).bit_length()}"),
    (clip, {"Bounds.low": "-inf has no JSON form"}, {"high": 1.0}, {"b": {}}, "-inf"),
    (study, {"Settings.rate": "nan has no JSON form", "Settings.seed": "an int of over 4,300 digits has no JSON form"},
     {"steps": 10}, {"s": {"first": {}, "again": {}}}, "nan"),
]


@pytest.mark.parametrize(("fn", "left_out", "published", "arguments", "answer"), RECORDS,
                         ids=["dataclass", "NamedTuple", "nested"])
async def test_a_record_fields_default_is_left_out_with_one_warning_each_and_the_tool_served(
        fn: Any, left_out: dict[str, str], published: dict[str, Any], arguments: dict[str, Any], answer: str) -> None:
    """Such a field's default was left out without a word, where a parameter's is warned of. (A pydantic
    model's is refused, its schema being pydantic's: tests/server/test_a_listed_field_a_client_cannot_read_...)"""
    server = MCPServer("record")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        server.tool()(fn)
    said = [str(w.message) for w in caught if issubclass(w.category, RegistrationWarning)]
    param = next(iter(inspect.signature(fn).parameters))
    assert said == [f"tool '{fn.__name__}': the default of field {field!r} (parameter {param!r}) is not in the "
                    f"published schema ({why}): clients are not told it; one that leaves the field out still gets it"
                    for field, why in left_out.items()]
    async with client_session(server) as session:
        listed = (await session.list_tools()).tools[0].input_schema["properties"][param]["properties"]
        if fn is study:  # (the fields of its first Settings)
            listed = listed["first"]["properties"]
        assert {name: value["default"] for name, value in listed.items() if "default" in value} == published
        result = await session.call_tool(fn.__name__, arguments)
    assert not result.is_error, result
    assert result.content[0].text == answer  # type: ignore[union-attr]


def test_a_written_input_schema_holding_nan_is_still_refused() -> None:
    server = MCPServer("written")
    with pytest.raises(RegistrationError, match=r"nan at schema\.properties\.x\.default has no JSON form"):
        server.tool(input_schema={"type": "object", "properties": {"x": {"type": "number", "default": math.nan}}})(
            numpy_nan)


def template_nan(pid: str, rate: float = math.inf) -> str:
    """A text by id."""
    return f"{pid} {rate}"


async def test_a_resource_templates_default_is_left_out_with_one_warning_and_still_applies() -> None:
    server = MCPServer("template")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        server.resource("data://t/{pid}")(template_nan)
    said = [str(w.message) for w in caught if issubclass(w.category, RegistrationWarning)]
    assert said == ["resource template 'data://t/{pid}': the default of parameter 'rate' is not in the published "
                    "schema (inf has no JSON form): clients are not told it; one that leaves the argument out still "
                    "gets it"]
    async with client_session(server) as session:
        read = await session.read_resource("data://t/a")  # type: ignore[arg-type]
    assert read.contents[0].text == "a inf"  # type: ignore[union-attr]
