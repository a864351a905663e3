"""Review r33 F3: since every list page was held to a byte bound, the first list after any change measured EVERY
entry of the table (its JSON encoded, on the event loop) even for a 20-entry page: 5,000 tools of ~1 kB, the first
page after a re-definition 50-82 ms instead of 6 ms. Now an entry is measured when a page first reads it (kept
till the next change): a page of 20 measures at most those 20. And review r33 N1: ``fitted_page`` counted the
empty page ``{"key":[]}`` as ``len(key) + 6`` bytes (it is + 7), so a page could be one byte over its bound.
Real server and in-memory client; :func:`fitted_page` against the JSON it makes."""

from __future__ import annotations

from typing import Any

import pytest

from nanohubmcp import MCPServer
from nanohubmcp.protocol import jsonenc
from nanohubmcp.protocol.client_event_cap import EVENT_ENVELOPE_BYTES
from nanohubmcp.server.handlers import list_pages
from nanohubmcp.server.handlers.list_pages import PageBound, fitted_page
from nanohubmcp.testing import in_memory

pytestmark = pytest.mark.timeout(120)


def define(server: MCPServer, name: str, description: str) -> None:
    def tool(x: int, y: str = "a") -> int:
        return x

    tool.__name__, tool.__doc__ = name, description
    server.tool()(tool)


def test_the_first_page_after_a_change_measures_only_its_entries(monkeypatch: pytest.MonkeyPatch) -> None:
    server = MCPServer("big", provenance=False, list_page_size=20)
    for k in range(500):
        define(server, f"t{k}", f"tool {k} " + "doc " * 50)
    measured: list[str] = []
    measure = list_pages.entry_bytes

    def counted(entry: dict[str, Any]) -> int:
        measured.append(entry["name"])
        return measure(entry)

    monkeypatch.setattr(list_pages, "entry_bytes", counted)
    with in_memory(server) as client:
        first = client.request("tools/list", {})
        assert [tool["name"] for tool in first["tools"]] == [f"t{k}" for k in range(20)]
        assert measured == [f"t{k}" for k in range(20)]  # the page's, not the table's 500
        second = client.request("tools/list", {"cursor": first["nextCursor"]})
        assert [tool["name"] for tool in second["tools"]] == [f"t{k}" for k in range(20, 40)]
        assert measured[20:] == [f"t{k}" for k in range(20, 40)]
        client.request("tools/list", {})
        assert len(measured) == 40  # measured once a change
        define(server, "t0", "defined again")  # a change: measured anew, the page's only
        assert client.request("tools/list", {})["tools"][0]["description"] == "defined again"
        assert measured[40:] == [f"t{k}" for k in range(20)]


ENTRIES = [{"name": "a", "d": "x" * 500}, {"name": "b", "d": "x" * 500}]


def fitted(limit: int) -> dict[str, Any]:
    return fitted_page("tools", ENTRIES, False, lambda i: f"C{i}", method="tools/list",
                       bound=PageBound(limit + EVENT_ENVELOPE_BYTES, hard=True))


def test_a_page_is_never_a_byte_over_its_bound() -> None:
    whole = len(jsonenc.dumps({"tools": ENTRIES}))
    assert fitted(whole)["tools"] == ENTRIES  # exactly the bound: the whole page
    cut = fitted(whole - 1)  # a byte less: one entry and the cursor after it
    assert cut == {"tools": ENTRIES[:1], "nextCursor": "C0"}
    assert len(jsonenc.dumps(cut)) <= whole - 1


@pytest.mark.parametrize("key", ["tools", "resourceTemplates"])
def test_the_empty_page_is_counted_to_the_byte(key: str) -> None:
    empty = len(jsonenc.dumps({key: []}))
    assert empty == len(key) + 7
    entry = {"name": "n"}
    exact = empty + len(jsonenc.dumps(entry))  # {"key":[{...}]}: the page of one, to the byte
    bound = PageBound(exact + EVENT_ENVELOPE_BYTES, hard=True)
    assert fitted_page(key, [entry], False, str, method="x/list", bound=bound) == {key: [entry]}
    with pytest.raises(Exception, match="alone is"):
        fitted_page(key, [entry], False, str, method="x/list",
                    bound=PageBound(exact - 1 + EVENT_ENVELOPE_BYTES, hard=True))
