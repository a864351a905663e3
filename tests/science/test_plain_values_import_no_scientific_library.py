"""Converting plain values never imports numpy, pandas, matplotlib, PIL or IPython's display machinery."""

from __future__ import annotations

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import dataclasses, datetime, decimal, enum, json, math, pathlib, sys
    from nanohubmcp import Image, MCPServer, ToolResult
    from nanohubmcp.server.results import shape as results

    class Color(enum.Enum):
        RED = "red"

    @dataclasses.dataclass
    class Point:
        x: float
        y: float

    PNG = bytes.fromhex("89504e470d0a1a0a") + b"0" * 16
    values = [None, "text", 1, 2.5, math.nan, True, {"a": [1, 2.5, None]}, [1, 2], (3, 4), Color.RED,
              Point(1.0, 2.0), datetime.datetime(2026, 1, 1), pathlib.Path("/tmp"), decimal.Decimal("1.5"),
              PNG, Image(data=PNG), ["caption", Image(data=PNG)]]
    for value in values:
        results.tool_result(value)
        results.structured_value(value)
        results.resource_contents(value, uri="x://y")
    results.tool_result(ToolResult("done"))
    try:
        results.tool_result(object())
    except TypeError as exc:
        assert "has no MCP form" in str(exc), exc
    server = MCPServer("plain", max_inline_bytes=10)
    results.tool_result({"big": "x" * 100})
    loaded = sorted(m for m in ("numpy", "pandas", "matplotlib", "PIL", "IPython.display", "IPython.core.display",
                                "orjson") if m in sys.modules)
    print(json.dumps(loaded))
    """
)


def test_plain_results_leave_the_scientific_libraries_unimported() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
