"""One server's stop does not make another server of the process write incomplete records (review r28 #6).

A stop writes its server's pending records at once, without waiting for the installed distributions' table
(``packages_complete: false``). That was a flag of the process: server A's stop made server B, still serving,
write ``packages_complete: false`` too, until B served again (a notebook serving one server and testing another,
two servers in a script). Each record store now has its own (:class:`~nanohubmcp.server.provenance.code_facts
.TableWait`).

Two real servers in one process (its own: the table is read once per process), each with its own state folder;
the table's read made slow for real (:mod:`slow_site`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from slow_site import answer_on_slow_site

pytestmark = [pytest.mark.timeout(180), pytest.mark.slow]

SCRIPT = """
import json, sys
from nanohubmcp import MCPServer
from nanohubmcp.server.provenance import code_facts
from nanohubmcp.server.provenance.records import record_id_of

def make(name):
    server = MCPServer(name, state_dir=sys.argv[1] + "/" + name)

    @server.tool()
    def double(x: int) -> int:
        '''Double.'''
        return 2 * x

    return server

def record_of(server, result):
    return server.core.provenance.find(record_id_of(result["_meta"]["io.nanohub/provenance"]))

a, b = make("a"), make("b")
b.start(port=0)
a.start(port=0)
b.call("double", {"x": 1})
a.call("double", {"x": 1})
a.stop()
later = b.call("double", {"x": 2})
unread = code_facts._table is None
print(json.dumps({"unread when b called": unread, "b complete": record_of(b, later)["packages_complete"]}))
b.stop()
"""


def test_a_stopped_servers_neighbour_still_waits_for_the_table(tmp_path: Path) -> None:
    answer = answer_on_slow_site(SCRIPT, tmp_path)
    assert answer["unread when b called"] is True, answer  # (else the read was not slow: the test proves nothing)
    assert answer["b complete"] is True, answer  # B serves on: its writer waited for the table
