"""A tool with a view (MCP Apps): ``damped_oscillation`` returns x/y data, ``ui://plots/chart`` plots it.

A client that supports MCP Apps (the ``io.modelcontextprotocol/ui`` extension) sees the tool's
``_meta.ui.resourceUri``, reads the view (``text/html;profile=mcp-app``), shows it in a sandboxed
iframe and hands it the tool's result; the view draws the curve as SVG, with nothing loaded from
the network. Other clients get the same data as text and ``structuredContent``.

    python examples/apps/start_mcp.py                  # 127.0.0.1:8000 (or $MCP_PORT)
    python examples/apps/start_mcp.py --port 8123 --token-file ~/.mcp-token   # or $MCP_TOKEN
"""

from __future__ import annotations

import argparse
import math

from nanohubmcp import MCPServer
from nanohubmcp.cli import add_port_option, add_script_token_options

server = MCPServer("apps-demo", version="1.0.0")

CHART = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Chart</title>
<style>
  body { font: 14px system-ui, sans-serif; margin: 12px; }
  svg { background: #fff; border: 1px solid #ccc; }
  polyline { fill: none; stroke: #1f77b4; stroke-width: 2; }
</style></head>
<body>
<h3 id="title">Waiting for the tool's result...</h3>
<svg id="plot" width="480" height="240" viewBox="0 0 480 240"><polyline points=""/></svg>
<p id="summary"></p>
<script>
mcpApp.onToolResult(function (result) {
  var data = mcpApp.data(result), xs = data.x, ys = data.y;
  var xmin = Math.min.apply(null, xs), xmax = Math.max.apply(null, xs);
  var ymin = Math.min.apply(null, ys), ymax = Math.max.apply(null, ys);
  var points = xs.map(function (x, i) {
    var px = 10 + 460 * (x - xmin) / ((xmax - xmin) || 1);
    var py = 230 - 220 * (ys[i] - ymin) / ((ymax - ymin) || 1);
    return px.toFixed(1) + "," + py.toFixed(1);
  });
  document.querySelector("#plot polyline").setAttribute("points", points.join(" "));
  document.getElementById("title").textContent = data.title;
  document.getElementById("summary").textContent =
    xs.length + " points, y from " + ymin.toFixed(3) + " to " + ymax.toFixed(3);
});
</script>
</body></html>
"""


@server.app_view("ui://plots/chart", prefers_border=True)
def chart() -> str:
    """An SVG line plot of ``{"x": [...], "y": [...], "title": ...}``."""
    return CHART


@server.tool(view="ui://plots/chart")
def damped_oscillation(frequency: float = 1.0, damping: float = 0.2, points: int = 200) -> dict:
    """Sample y = exp(-damping t) cos(2 pi frequency t) for t in [0, 10] s.

    Args:
        frequency: oscillation frequency in Hz.
        damping: decay rate in 1/s.
        points: number of samples (2-5000).
    """
    if not 2 <= points <= 5000:
        raise ValueError("points must be between 2 and 5000")
    ts = [10.0 * i / (points - 1) for i in range(points)]
    ys = [math.exp(-damping * t) * math.cos(2 * math.pi * frequency * t) for t in ts]
    return {
        "title": f"Damped oscillation, f = {frequency} Hz, damping = {damping} 1/s",
        "x": [round(t, 6) for t in ts],
        "y": [round(y, 6) for y in ys],
    }


def main(argv: list[str] | None = None) -> None:
    """Parse ``--host``/``--port`` (default 127.0.0.1, ``$MCP_PORT`` or 8000), ``--token-file``/``--token``,
    ``--transport``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default: 127.0.0.1)")
    add_port_option(parser)  # --port N, else $MCP_PORT, else 8000; a bad one exits 2 saying 0-65535
    add_script_token_options(parser)  # --token-file PATH, else $MCP_TOKEN; an empty --token exits 2
    parser.add_argument(
        "--transport",
        choices=["http", "stdio"],
        default=None,
        help="http, or stdio for desktop clients (default: $MCP_TRANSPORT or http)",
    )
    args = parser.parse_args(argv)
    server.run(host=args.host, port=args.port, transport=args.transport, token=args.token)


if __name__ == "__main__":
    main()
