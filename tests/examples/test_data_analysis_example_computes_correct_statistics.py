"""examples/data_analysis: every tool checked against Python's ``statistics`` module, the two
datasets read as JSON, and the prompt — through the official ``mcp`` client."""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from example_process import ExampleProcess, run_example
from json_posts import post_json
from support import mcp_client

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def example() -> Iterator[ExampleProcess]:
    with run_example("data_analysis") as running:
        yield running


async def call(url: str, name: str, arguments: dict[str, Any]) -> Any:
    """Call a tool; return its structured content after checking the text block says the same."""
    with anyio.fail_after(20):
        async with mcp_client(url + "mcp") as client:
            result = await client.call_tool(name, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


async def call_error(url: str, name: str, arguments: dict[str, Any]) -> str:
    with anyio.fail_after(20):
        async with mcp_client(url + "mcp") as client:
            result = await client.call_tool(name, arguments)
    assert result.is_error is True
    return result.content[0].text


def numbers(text: str) -> list[float]:
    return [float(v) for v in text.split(",")]


@pytest.mark.anyio
async def test_the_tools_resources_and_prompt_are_listed(example: ExampleProcess) -> None:
    with anyio.fail_after(20):
        async with mcp_client(example.url + "mcp") as client:
            assert client.server_info.name == "data-analysis"
            tools = {t.name: t for t in (await client.list_tools()).tools}
            resources = (await client.list_resources()).resources
            templates = (await client.list_resource_templates()).resource_templates
            prompts = (await client.list_prompts()).prompts
    assert set(tools) == {"descriptive_stats", "correlation", "linear_regression", "normalize"}
    # Docstring Args become parameter descriptions; the summary stays the tool's description.
    stats = tools["descriptive_stats"]
    assert stats.description == "Calculate descriptive statistics for a dataset."
    assert stats.input_schema["properties"]["data"]["type"] == "string"
    assert "Comma-separated" in stats.input_schema["properties"]["data"]["description"]
    normalize = tools["normalize"].input_schema
    assert normalize["required"] == ["data"]
    assert normalize["properties"]["method"]["default"] == "minmax"
    assert sorted(str(r.uri) for r in resources) == ["data://samples/scatter", "data://samples/temperatures"]
    assert all(r.mime_type == "application/json" for r in resources)
    assert [t.uri_template for t in templates] == ["nanohubmcp://results/{id}{?part}"]  # the server's own
    assert [p.name for p in prompts] == ["analyze_data"]


@pytest.mark.parametrize("data", ["10,20,30,40,50", "3, 1, 4, 1, 5, 9", "-2.5", "1e3,2e3"])
@pytest.mark.anyio
async def test_descriptive_stats_match_the_statistics_module(example: ExampleProcess, data: str) -> None:
    values = numbers(data)
    got = await call(example.url, "descriptive_stats", {"data": data})
    assert got["count"] == len(values)
    assert got["mean"] == pytest.approx(statistics.fmean(values), abs=1e-6)
    assert got["median"] == pytest.approx(statistics.median(values), abs=1e-6)
    assert got["min"] == min(values)
    assert got["max"] == max(values)
    assert got["std"] == pytest.approx(statistics.pstdev(values), abs=1e-6)


@pytest.mark.parametrize(("x", "y"), [
    ("1,2,3,4,5", "2,4,6,8,10"),
    ("1,2,3,4,5", "10,8,6,4,2"),
    ("1,2,3,4,5,6,7,8,9,10", "52,58,65,68,72,78,82,85,90,95"),
    ("1,2,3,4", "1,3,2,4"),
])
@pytest.mark.anyio
async def test_correlation_matches_pearson(example: ExampleProcess, x: str, y: str) -> None:
    expected = statistics.correlation(numbers(x), numbers(y))
    got = await call(example.url, "correlation", {"x_data": x, "y_data": y})
    assert got["correlation"] == pytest.approx(expected, abs=1e-6)
    assert got["r_squared"] == pytest.approx(expected ** 2, abs=1e-6)
    assert got["n"] == len(numbers(x))
    assert got["direction"] == ("positive" if expected > 0 else "negative")


@pytest.mark.anyio
async def test_linear_regression_matches_least_squares(example: ExampleProcess) -> None:
    x, y = "1,2,3,4,5", "2.1,3.9,6.2,7.8,10.1"
    slope, intercept = statistics.linear_regression(numbers(x), numbers(y))
    got = await call(example.url, "linear_regression", {"x_data": x, "y_data": y})
    assert got["slope"] == pytest.approx(slope, abs=1e-6)
    assert got["intercept"] == pytest.approx(intercept, abs=1e-6)
    assert got["r_squared"] == pytest.approx(statistics.correlation(numbers(x), numbers(y)) ** 2, abs=1e-6)
    assert got["n"] == 5
    assert got["equation"] == f"y = {got['slope']}x + {got['intercept']}"  # y = 1.99x + 0.05


@pytest.mark.anyio
async def test_an_exact_line_is_recovered(example: ExampleProcess) -> None:
    got = await call(example.url, "linear_regression", {"x_data": "0,1,2,3", "y_data": "1,3,5,7"})
    assert (got["slope"], got["intercept"], got["r_squared"]) == (2.0, 1.0, 1.0)
    assert got["equation"] == "y = 2.0x + 1.0"
    falling = await call(example.url, "linear_regression", {"x_data": "0,1,2", "y_data": "-1,-4,-7"})
    assert falling["equation"] == "y = -3.0x - 1.0"


@pytest.mark.anyio
async def test_normalize_minmax_and_zscore(example: ExampleProcess) -> None:
    data = "10,20,30,40,50"
    minmax = await call(example.url, "normalize", {"data": data})
    assert minmax["method"] == "minmax"
    assert minmax["normalized"] == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert minmax["original"] == numbers(data)
    zscore = await call(example.url, "normalize", {"data": data, "method": "zscore"})
    mean, std = statistics.fmean(numbers(data)), statistics.pstdev(numbers(data))
    assert zscore["normalized"] == pytest.approx([(v - mean) / std for v in numbers(data)], abs=1e-6)
    assert statistics.fmean(zscore["normalized"]) == pytest.approx(0, abs=1e-9)
    assert statistics.pstdev(zscore["normalized"]) == pytest.approx(1, abs=1e-5)


@pytest.mark.parametrize(("name", "arguments", "message"), [
    ("descriptive_stats", {"data": "1,two,3"}, "'two' is not a number"),
    ("descriptive_stats", {"data": ""}, "empty"),
    ("correlation", {"x_data": "1,2,3", "y_data": "1,2"}, "must pair up"),
    ("correlation", {"x_data": "1,2,3", "y_data": "5,5,5"}, "constant"),
    ("linear_regression", {"x_data": "2,2,2", "y_data": "1,2,3"}, "all x values are equal"),
    ("linear_regression", {"x_data": "1", "y_data": "1"}, "at least two"),
    ("normalize", {"data": "1,2", "method": "log"}, "unknown method 'log'"),
    ("normalize", {"data": "4,4,4"}, "two different values"),
])
@pytest.mark.anyio
async def test_bad_data_is_a_tool_error_that_says_why(example: ExampleProcess, name: str,
                                                      arguments: dict[str, str], message: str) -> None:
    assert message in await call_error(example.url, name, arguments)


@pytest.mark.anyio
async def test_the_datasets_read_as_json(example: ExampleProcess) -> None:
    with anyio.fail_after(20):
        async with mcp_client(example.url + "mcp") as client:
            temperatures = (await client.read_resource("data://samples/temperatures")).contents[0]
            scatter = (await client.read_resource("data://samples/scatter")).contents[0]
    assert temperatures.mime_type == scatter.mime_type == "application/json"
    temps = json.loads(temperatures.text)
    assert len(temps["data"]) == len(temps["labels"]) == 12
    assert temps["labels"][0] == "Jan"
    assert temps["data"][6] == 24.2
    points = json.loads(scatter.text)
    assert points["x"] == list(range(1, 11))
    assert len(points["y"]) == 10
    # The scatter sample is what the correlation tool is for.
    assert statistics.correlation(points["x"], points["y"]) > 0.99
    assert not math.isnan(statistics.fmean(points["y"]))


@pytest.mark.anyio
async def test_the_analyze_prompt_carries_the_data(example: ExampleProcess) -> None:
    with anyio.fail_after(20):
        async with mcp_client(example.url + "mcp") as client:
            got = await client.get_prompt("analyze_data", {"data": "1,2,3"})
    [message] = got.messages
    assert (message.role, message.content.text) == ("user", "Please analyze: 1,2,3")


def test_the_readme_curls_answer_with_the_results(example: ExampleProcess) -> None:
    status, stats = post_json(example.url + "tools/descriptive_stats", {"data": "10,20,30,40,50"})
    assert status == 200
    assert stats == {"count": 5, "mean": 30.0, "median": 30.0, "min": 10.0, "max": 50.0,
                     "std": round(statistics.pstdev([10, 20, 30, 40, 50]), 6)}
    pairs = {"x_data": "1,2,3,4,5", "y_data": "2,4,6,8,10"}
    status, corr = post_json(example.url + "tools/correlation", pairs)
    assert (status, corr["correlation"], corr["strength"]) == (200, 1.0, "strong")
    status, fit = post_json(example.url + "tools/linear_regression",
                            {"x_data": "1,2,3,4,5", "y_data": "2.1,3.9,6.2,7.8,10.1"})
    assert (status, fit["slope"], fit["intercept"]) == (200, 1.99, 0.05)
    status, norm = post_json(example.url + "tools/normalize", {"data": "10,20,30,40,50", "method": "zscore"})
    assert status == 200
    assert norm["method"] == "zscore"
    assert norm["normalized"][2] == 0.0
    status, read = post_json(example.url, {"jsonrpc": "2.0", "id": 1, "method": "resources/read",
                                           "params": {"uri": "data://samples/temperatures"}})
    assert status == 200
    assert read["id"] == 1
    assert json.loads(read["result"]["contents"][0]["text"])["labels"][11] == "Dec"
