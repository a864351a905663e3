"""Data analysis: descriptive statistics, correlation, regression and normalisation tools,
with two sample datasets as resources and a prompt that asks for an analysis.

Datasets are passed as comma-separated numbers (``"1,2,3,4,5"``), which any client can type.

    python examples/data_analysis/start_mcp.py                # 127.0.0.1:8000 (or $MCP_PORT)
    # other machines may connect: bind every interface and require the token in a file only you can
    # read (chmod 600 ~/.mcp-token), or in $MCP_TOKEN; not --token TOKEN, which ps shows to everyone
    python examples/data_analysis/start_mcp.py --port 8124 --host 0.0.0.0 --token-file ~/.mcp-token

    curl -X POST http://localhost:8000/tools/correlation -H "Content-Type: application/json" \\
         -d '{"x_data": "1,2,3,4,5", "y_data": "2,4,6,8,10"}'
"""

from __future__ import annotations

import argparse
import math

from nanohubmcp import MCPServer
from nanohubmcp.cli import add_port_option, add_script_token_options

server = MCPServer("data-analysis", version="1.0.0")


def _values(text, label="data"):
    # type: (str, str) -> list[float]
    """Parse ``"1, 2.5,3"`` into floats; a ValueError names the offending item."""
    items = [item.strip() for item in str(text).split(",")]
    if not any(items):
        raise ValueError(f"{label} is empty: give comma-separated numbers such as \"1,2,3\"")
    numbers = []
    for item in items:
        try:
            value = float(item)
        except ValueError:
            raise ValueError(f"{label}: {item!r} is not a number") from None
        if not math.isfinite(value):
            raise ValueError(f"{label}: {item!r} is not a finite number")
        numbers.append(value)
    return numbers


def _paired(x_data, y_data):
    # type: (str, str) -> tuple[list[float], list[float]]
    """Two datasets of equal length with at least two points each."""
    x = _values(x_data, "x_data")
    y = _values(y_data, "y_data")
    if len(x) != len(y):
        raise ValueError(f"x_data has {len(x)} values but y_data has {len(y)}; they must pair up")
    if len(x) < 2:
        raise ValueError("at least two (x, y) pairs are needed")
    return x, y


def _mean(values):
    # type: (list[float]) -> float
    return math.fsum(values) / len(values)


def _population_std(values):
    # type: (list[float]) -> float
    mean = _mean(values)
    return math.sqrt(math.fsum((v - mean) ** 2 for v in values) / len(values))


@server.tool()
def descriptive_stats(data):
    # type: (str) -> dict
    """
    Calculate descriptive statistics for a dataset.

    Args:
        data: Comma-separated list of numeric values (e.g., "1,2,3,4,5")
    """
    values = _values(data)
    n = len(values)
    ordered = sorted(values)
    middle = n // 2
    median = ordered[middle] if n % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    return {
        "count": n,
        "mean": round(_mean(values), 6),
        "median": round(median, 6),
        "min": ordered[0],
        "max": ordered[-1],
        # Population standard deviation (divides by n), the spread of the data given.
        "std": round(_population_std(values), 6),
    }


@server.tool()
def correlation(x_data, y_data):
    # type: (str, str) -> dict
    """
    Calculate Pearson correlation coefficient between two datasets.

    Args:
        x_data: Comma-separated x values (e.g., "1,2,3,4,5")
        y_data: Comma-separated y values, as many as x_data
    """
    x, y = _paired(x_data, y_data)
    mx, my = _mean(x), _mean(y)
    sxy = math.fsum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    sxx = math.fsum((a - mx) ** 2 for a in x)
    syy = math.fsum((b - my) ** 2 for b in y)
    if sxx == 0 or syy == 0:
        raise ValueError("correlation is undefined when one dataset is constant")
    r = max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))
    strength = abs(r)
    if strength >= 0.7:
        label = "strong"
    elif strength >= 0.4:
        label = "moderate"
    elif strength >= 0.1:
        label = "weak"
    else:
        label = "none"
    direction = "positive" if r > 0 else "negative" if r < 0 else "none"
    return {
        "correlation": round(r, 6),
        "r_squared": round(r * r, 6),
        "n": len(x),
        "strength": label,
        "direction": direction,
    }


@server.tool()
def linear_regression(x_data, y_data):
    # type: (str, str) -> dict
    """
    Perform simple linear regression (y = mx + b).

    Least-squares fit of a straight line through the points.

    Args:
        x_data: Comma-separated x values (e.g., "1,2,3,4,5")
        y_data: Comma-separated y values, as many as x_data
    """
    x, y = _paired(x_data, y_data)
    mx, my = _mean(x), _mean(y)
    sxx = math.fsum((a - mx) ** 2 for a in x)
    if sxx == 0:
        raise ValueError("all x values are equal: a line y = mx + b cannot be fitted")
    sxy = math.fsum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    slope = sxy / sxx
    intercept = my - slope * mx
    residual = math.fsum((b - (slope * a + intercept)) ** 2 for a, b in zip(x, y, strict=True))
    total = math.fsum((b - my) ** 2 for b in y)
    # A constant y is fitted exactly by a flat line.
    r_squared = 1.0 if total == 0 else 1.0 - residual / total
    m, b = round(slope, 6), round(intercept, 6)
    return {
        "slope": m,
        "intercept": b,
        "r_squared": round(r_squared, 6),
        "n": len(x),
        "equation": "y = {}x {} {}".format(m, "-" if b < 0 else "+", abs(b)),
    }


@server.tool()
def normalize(data, method="minmax"):
    # type: (str, str) -> dict
    """
    Normalize a dataset using 'minmax' or 'zscore' method.

    Args:
        data: Comma-separated list of numeric values
        method: "minmax" scales to [0, 1]; "zscore" centres on the mean in units of the
            (population) standard deviation
    """
    values = _values(data)
    if method == "minmax":
        low, high = min(values), max(values)
        if high == low:
            raise ValueError("minmax normalisation needs at least two different values")
        scaled = [(v - low) / (high - low) for v in values]
        details = {"min": low, "max": high}
    elif method == "zscore":
        mean, std = _mean(values), _population_std(values)
        if std == 0:
            raise ValueError("zscore normalisation needs at least two different values")
        scaled = [(v - mean) / std for v in values]
        details = {"mean": round(mean, 6), "std": round(std, 6)}
    else:
        raise ValueError(f"unknown method {method!r}: use 'minmax' or 'zscore'")
    return {
        "method": method,
        "original": values,
        "normalized": [round(v, 6) for v in scaled],
        **details,
    }


@server.resource("data://samples/temperatures", mime_type="application/json")
def temperature_data():
    """Monthly average temperatures (Celsius) for a year."""
    return {
        "data": [2.1, 3.5, 7.2, 12.1, 17.3, 21.5, 24.2, 23.8, 19.4, 13.2, 7.1, 3.2],
        "labels": ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"],
    }


@server.resource("data://samples/scatter", mime_type="application/json")
def scatter_data():
    """Sample data for scatter plot / correlation analysis."""
    return {
        "x": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
        "y": [52, 58, 65, 68, 72, 78, 82, 85, 90, 95],
    }


@server.prompt()
def analyze_data(data):
    # type: (str) -> list
    """Generate a prompt to analyze a dataset."""
    return [{"role": "user", "content": {"type": "text", "text": f"Please analyze: {data}"}}]


def main(argv=None):
    # type: (list[str] | None) -> None
    """Parse ``--host``/``--port`` (default 127.0.0.1 and ``$MCP_PORT`` or 8000), ``--token-file``/``--token``
    (default ``$MCP_TOKEN``) and ``--transport`` (default ``$MCP_TRANSPORT`` or http; stdio for
    desktop clients) and serve."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default: 127.0.0.1, this machine)")
    add_script_token_options(parser)  # --token-file PATH, else $MCP_TOKEN; an empty --token exits 2
    add_port_option(parser)  # --port N, else $MCP_PORT, else 8000; a bad one exits 2 saying 0-65535
    parser.add_argument("--transport", choices=["http", "stdio"], default=None,
                        help="http, or stdio for desktop clients (default: $MCP_TRANSPORT or http)")
    args = parser.parse_args(argv)
    server.run(host=args.host, port=args.port, transport=args.transport, token=args.token)


if __name__ == "__main__":
    main()
