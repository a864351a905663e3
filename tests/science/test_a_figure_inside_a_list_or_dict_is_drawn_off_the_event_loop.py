"""A figure returned inside a list or a dict (``[fig, {"n": 1}]``, ``{"plot": fig}``), and a large list of
records, are shaped on the worker pool, as a figure returned alone is (review r20, M1).

Only a value the converters recognise (a figure, an array) and a long text went to the worker pool; a list or
dict was shaped on the event loop, so the figures in it were drawn there (and a list of many records walked
and encoded there): every other client, ``/healthz`` included, waited for the drawing.

The figure here holds a real matplotlib artist whose drawing waits until the test has had ``/healthz``
answered: drawn on the event loop, that answer could not come.
"""

from __future__ import annotations

import json
import threading
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from support import serve

from nanohubmcp import MCPServer

WAIT = 10.0


def waiting_figure(drawing: threading.Event, release: threading.Event) -> Any:
    """A figure one of whose artists, when drawn, says so and waits for ``release``."""
    from matplotlib.artist import Artist
    from matplotlib.figure import Figure

    class Waiting(Artist):
        def draw(self, renderer: Any) -> None:
            drawing.set()
            release.wait(WAIT)

    fig = Figure()
    fig.add_subplot().plot([0, 1], [1, 0])
    fig.add_artist(Waiting())
    return fig


def rest(url: str, name: str) -> Any:
    request = urllib.request.Request(url + "tools/" + name, b"{}", {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def healthz(url: str) -> int:
    with urllib.request.urlopen(url + "healthz", timeout=5) as response:
        return int(response.status)


@pytest.mark.parametrize("shape", ["list", "dict"])
def test_healthz_is_answered_while_a_figure_in_a_result_is_drawn(shape: str) -> None:
    drawing, release = threading.Event(), threading.Event()
    server = MCPServer("figures")

    @server.tool()
    def plotted() -> object:
        """A figure with its numbers."""
        fig = waiting_figure(drawing, release)
        return [fig, {"n": 1}] if shape == "list" else {"plot": fig, "n": 1}

    with serve(server) as url, ThreadPoolExecutor(1) as pool:
        answer = pool.submit(rest, url, "plotted")
        try:
            assert drawing.wait(WAIT), "the figure was never drawn"
            assert healthz(url) == 200  # the loop answers while the figure is drawn
        finally:
            release.set()
        expected = ["<image: content[0]>", {"n": 1}] if shape == "list" else {"plot": "<image: content[0]>", "n": 1}
        assert answer.result(WAIT) == ({"result": expected} if shape == "list" else expected)


def test_a_small_list_or_dict_of_plain_values_stays_cheap_to_judge() -> None:
    from nanohubmcp.server.results.convert import COSTLY_ITEMS, costly

    assert not costly({"a": 1, "b": [1, 2, {"c": "x"}]})
    assert not costly([1.5] * COSTLY_ITEMS)
    assert costly([1.5] * (COSTLY_ITEMS + 1))
    assert costly([{"n": i} for i in range(COSTLY_ITEMS)])  # the records count as items too
    assert costly({"text": "x" * (64 * 1024 + 1)})
    assert not costly("x" * 10**6)  # (a str is judged by its length elsewhere)
