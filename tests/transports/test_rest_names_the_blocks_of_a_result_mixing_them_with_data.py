"""trial38 T7: a REST call of a tool returning ``[fig, "cap", {"n": 1}]`` answered ``{"n": 1}`` alone: the
figure and the caption were dropped without a word, where the HTTP page says a picture is named, never
silently dropped; the same result returned by a job and polled over REST answered ``{"n": 1}`` too.

A REST answer for a list mixing blocks with data is now the whole list, each block named in its place (an
image ``"<image: content[i]>"``, a text block as its text, bytes ``"<content[i]>"``) and the data as itself;
a job started over REST answers the same value when polled, each block named by its index in the poll's own
answer (after its JSON text: ``content[1]`` for the first; trial44 T44-10).
"""

from __future__ import annotations

import json
import time

from support import serve
from transports.test_rest_names_the_pictures_and_files_it_does_not_carry import PNG, rest

from nanohubmcp import MCPServer


def figure() -> object:
    from matplotlib.figure import Figure

    fig = Figure()
    fig.add_subplot().plot([0, 1], [1, 0])
    return fig


def build() -> MCPServer:
    server = MCPServer("mixed")

    @server.tool()
    def plotted() -> object:
        """A figure, its caption and its numbers."""
        return [figure(), "cap", {"n": 1}]

    @server.tool()
    def data_first() -> object:
        """Data around a picture."""
        return [{"n": 1}, figure(), 5, "note", PNG]

    @server.tool()
    def in_a_dict() -> object:
        """A dict names its picture in its place, as before."""
        return {"plot": figure(), "n": 1}

    @server.tool()
    def picture_in_data_first() -> object:
        """A picture inside a data item, then a caption: the caption is block 1, not block 0 again."""
        return [{"plot": figure()}, "cap", {"n": 1}]

    @server.async_tool()
    def job_plotted() -> object:
        """The figure, caption and numbers, as a job."""
        return [figure(), "cap", {"n": 1}]

    return server


def test_every_block_is_named_in_its_place_beside_the_data() -> None:
    server = build()
    with serve(server) as url:
        assert rest(url, "plotted", {}) == {"result": ["<image: content[0]>", "cap", {"n": 1}]}
        assert rest(url, "data_first", {}) == {"result": [{"n": 1}, "<image: content[0]>", 5, "note",
                                                            "<image: content[2]>"]}
        assert rest(url, "in_a_dict", {}) == {"plot": "<image: content[0]>", "n": 1}
        over_mcp = server.call("plotted", {})  # MCP answers as before: the blocks, then the data's text
        assert [block["type"] for block in over_mcp["content"]] == ["image", "text", "text"]
        assert json.loads(over_mcp["content"][2]["text"]) == {"n": 1}


def test_a_jobs_value_polled_over_rest_is_the_direct_calls_answer_named_in_the_polls() -> None:
    with serve(build()) as url:
        job_id = rest(url, "job_plotted", {})["job_id"]
        deadline = time.monotonic() + 10
        while (polled := rest(url, "get_job_result", {"job_id": job_id}))["status"] == "running":
            assert time.monotonic() < deadline, polled
            time.sleep(0.01)
        assert rest(url, "plotted", {})["result"] == ["<image: content[0]>", "cap", {"n": 1}]
        assert polled["result"] == ["<image: content[1]>", "cap", {"n": 1}]  # get_job_result: its JSON text first


def test_a_block_after_a_picture_inside_data_is_named_by_its_own_index() -> None:
    # It was named by the next index in the order of the list's own blocks: the caption answered as
    # "<image: content[0]>", the dict's picture, and the caption itself was lost.
    with serve(build()) as url:
        assert rest(url, "picture_in_data_first", {}) == {"result": [{"plot": "<image: content[0]>"}, "cap", {"n": 1}]}
