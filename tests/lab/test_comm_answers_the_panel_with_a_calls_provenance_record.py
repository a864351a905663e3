"""A click on a call in the panel's log shows its provenance record: the kernel side, no browser.

Each finished call's entry names its record (``record``, the id at the end of the
``nanohubmcp://provenance/<id>`` URI in the result's ``_meta``); the panel's ``{"type":
"provenance", "id"}`` is answered on its comm with that record, as ``%mcp history ID`` shows it.
"""

from __future__ import annotations

import pytest
from comm_kernel import CommKernel, call, finished, open_panel

pytestmark = pytest.mark.slow

LOAD = "%load_ext nanohubmcp\n%config NanohubMCP.port = 0"
ADD = '''%%mcp_tool
def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b
'''


def test_a_finished_call_names_its_record_and_the_panel_can_read_it(comm_kernel: CommKernel) -> None:
    comm_kernel.run(LOAD)
    comm_kernel.run(ADD)
    comm_id, status, _, _ = open_panel(comm_kernel)
    since = comm_kernel.mark()
    [result] = call(status["mcp_url"], ("add", {"a": 2, "b": 3}))
    [entry] = finished(comm_kernel, comm_id, since, 1).values()
    uri = result.meta["io.nanohub/provenance"]
    assert entry["record"]
    assert uri == f"nanohubmcp://provenance/{entry['record']}"

    since = comm_kernel.mark()
    comm_kernel.send(comm_id, {"type": "provenance", "id": entry["record"]})
    answer = comm_kernel.wait_data(comm_id, "provenance", since)
    record = answer["record"]
    assert answer["id"] == entry["record"]
    assert record["id"] == entry["record"]
    assert record["tool"] == "add"
    assert record["code"]["hash"].startswith("sha256:")
    assert record["arguments"] == {"a": 2, "b": 3}
    assert record["started"] <= record["ended"]
    assert record["executor"] in ("event-loop", "worker-pool")
    assert record["where"]["pid"] > 0
    assert record["result_digest"]
    assert record["cache"] is None  # the tool does not cache
    link = "__import__('nanohubmcp.jupyter.comm', fromlist=['_LINKS'])._LINKS"
    found = f"p.subject.server.core.provenance.find({entry['record']!r})"
    operator_view = f"[{found}['code']['hash'] for p in {link}.values()]"
    assert comm_kernel.evaluate(operator_view) == [record["code"]["hash"]]  # what %mcp history ID shows


def test_an_unknown_or_malformed_record_id_answers_none(comm_kernel: CommKernel) -> None:
    comm_kernel.run(LOAD)
    comm_kernel.run(ADD)
    comm_id, _, _, _ = open_panel(comm_kernel)
    since = comm_kernel.mark()
    comm_kernel.send(comm_id, {"type": "provenance", "id": "no-such-record"})
    assert comm_kernel.wait_data(comm_id, "provenance", since) == {
        "type": "provenance",
        "id": "no-such-record",
        "record": None,
    }
    since = comm_kernel.mark()
    comm_kernel.send(comm_id, {"type": "provenance", "id": ["not", "a", "string"]})
    assert comm_kernel.wait_data(comm_id, "provenance", since) == {"type": "provenance", "id": None, "record": None}
