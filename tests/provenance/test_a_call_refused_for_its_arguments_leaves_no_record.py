"""A ``tools/call`` whose arguments the tool's input schema refuses never reached the tool: no code
of it ran, so it leaves no provenance record (none naming the tool's code hash and an executor as
what produced the refusal) and its result names none; a valid call is recorded as before
(trial12 LOW-2, as trial11 F9 for a middleware's own answer)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from support import PROVENANCE_META, serve

from nanohubmcp import MCPServer

pytestmark = pytest.mark.timeout(60)
np = pytest.importorskip("numpy")  # a module name the annotations below are read against


class App:
    def __init__(self, state_dir: Path) -> None:
        self.runs = 0
        self.server = server = MCPServer("refused", state_dir=str(state_dir))

        @server.tool()
        def add(a: float, b: float) -> float:
            """Sum."""
            self.runs += 1
            return a + b

    def records(self) -> list[tuple[str, str]]:
        return [(record["tool"], record["status"]) for record in self.server.core.provenance.recent(50)]


@pytest.fixture
def app(tmp_path: Path) -> Iterator[App]:
    app = App(tmp_path)
    with serve(app.server):
        yield app


def test_server_call_refused_for_its_arguments_leaves_no_record(app: App) -> None:
    refused = app.server.call("add", {"a": "x", "b": 1})
    assert refused.is_error
    assert "Invalid arguments for tool 'add'" in refused.text
    assert PROVENANCE_META not in (refused.get("_meta") or {})
    valid = app.server.call("add", {"a": 1, "b": 2})
    assert not valid.is_error
    assert app.runs == 1
    record = app.server.core.provenance.find(valid["_meta"][PROVENANCE_META].rsplit("/", 1)[1])
    assert record is not None
    assert record["code"]["hash"].startswith("sha256:")
    assert app.records() == [("add", "completed")]  # the valid call's only


def test_over_http_a_refused_call_leaves_no_record(app: App) -> None:
    url = app.server.url
    assert url is not None
    rest = httpx2.post(url + "tools/add", json={"a": "x", "b": 1}, timeout=10)
    assert rest.status_code == 400, rest.text
    assert "Link" not in rest.headers
    mcp = httpx2.post(
        url + "mcp",
        timeout=10,
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "add", "arguments": {"a": "x"}}},
        headers={"MCP-Protocol-Version": "2025-11-25", "Accept": "application/json, text/event-stream"},
    )
    assert mcp.status_code == 200, mcp.text
    assert mcp.json()["result"]["isError"] is True
    assert PROVENANCE_META not in (mcp.json()["result"].get("_meta") or {})
    handled = httpx2.post(url + "tools/add", json={"a": 1, "b": 1}, timeout=10)
    assert handled.json() == {"result": "2.0"}
    assert 'rel="http://www.w3.org/ns/prov#has_provenance"' in handled.headers["Link"]
    assert app.records() == [("add", "completed")]


def test_a_refusal_by_the_tools_own_argument_check_leaves_no_record(tmp_path: Path) -> None:
    """A fresh-user trial: arguments the schema admits but the tool's own check refuses (an array's shape;
    a Rappture value's units or limits) answered the same "Invalid arguments for tool ..." and left a record
    naming an executor and a thread, as if the function had run."""
    server = MCPServer("refused-shape", state_dir=str(tmp_path))
    runs = []

    @server.tool()
    def total(a: np.ndarray) -> float:
        """Sum of an array."""
        runs.append(a.shape)
        return float(a.sum())

    with serve(server):
        refused = server.call("total", {"a": [[1], [2, 3]]})
        assert refused.is_error
        assert "Invalid arguments for tool 'total'" in refused.text
        assert PROVENANCE_META not in (refused.get("_meta") or {})
        valid = server.call("total", {"a": [[1, 2], [3, 4]]})
        assert PROVENANCE_META in valid["_meta"]
        assert runs == [(2, 2)]
        assert [(r["tool"], r["status"]) for r in server.core.provenance.recent(50)] == [("total", "completed")]
