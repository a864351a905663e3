"""trial37 V2: a REST call of a tool returning a figure alone (or with a caption) answered its MCP content
blocks, the whole PNG as base64 inside the JSON, where the getting-started page says pictures stay MCP
content and the REST answer names them (``"<image: content[0]>"``, as for ``{"plot": fig}``), and where
the same figure returned by a job and polled over REST answered the name.

One rule now: a REST answer with no structured content names each block that is not text, as a job's
value does: an image ``"<image: content[i]>"``, bytes or audio ``"<content[i]>"`` (i: the block's index in
the MCP answer of the same request: a polled job's after its JSON text, trial44 T44-10).
"""

from __future__ import annotations

import json
import time
import urllib.request
from typing import Any

import pytest
from support import serve

from nanohubmcp import MCPServer

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24
RAW = b"\x00\x01hello\xff"


def rest(url: str, name: str, arguments: dict[str, Any]) -> Any:
    request = urllib.request.Request(url + "tools/" + name, json.dumps(arguments).encode(),
                                     {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def build() -> MCPServer:
    server = MCPServer("pictures")

    @server.tool()
    def figure() -> object:
        """A matplotlib figure."""
        from matplotlib.figure import Figure

        fig = Figure()
        fig.add_subplot().plot([0, 1], [1, 0])
        return fig

    @server.tool()
    def captioned() -> object:
        """A picture with a caption."""
        return [PNG, "caption"]

    @server.tool()
    def raw() -> bytes:
        """Bytes no picture."""
        return RAW

    @server.async_tool()
    def job_figure() -> bytes:
        """The picture, as a job."""
        return PNG

    return server


def test_a_picture_or_bytes_is_named_as_a_job_names_it() -> None:
    pytest.importorskip("matplotlib")
    with serve(build()) as url:
        assert rest(url, "figure", {}) == {"result": "<image: content[0]>"}
        assert rest(url, "captioned", {}) == {"result": ["<image: content[0]>", "caption"]}
        assert rest(url, "raw", {}) == {"result": "<content[0]>"}
        job_id = rest(url, "job_figure", {})["job_id"]
        deadline = time.monotonic() + 10
        while (polled := rest(url, "get_job_result", {"job_id": job_id}))["status"] == "running":
            assert time.monotonic() < deadline, polled
            time.sleep(0.01)
        assert polled["result"] == "<image: content[1]>"  # the poll's block after its JSON text
