"""A request refused for its ``Host`` (421) or ``Origin`` (403) is logged as every other line of a
``nanohubmcp run --access-log`` process is: ``[worker pid N] nanohubmcp.http WARNING`` and the status,
so in the log of several processes behind nginx it says which process refused what (trial16 F4: the
line was a bare ``refused request for host ...``)."""

from __future__ import annotations

import http.client
import re
import time

import pytest
from cluster import Cluster

pytestmark = pytest.mark.timeout(120)


def status(port: int, headers: dict[str, str]) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", "/mcp/server-card", headers=headers)
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def test_refusals_name_the_process_the_logger_and_the_status(cluster: Cluster) -> None:
    for _ in range(3):  # round-robin: every process once
        assert status(cluster.port, {"Host": "rebound.example.net"}) == 421
    assert status(cluster.port, {"Origin": "https://evil.example.net"}) == 403
    host_line = re.compile(
        r"^\[worker pid (\d+)\] nanohubmcp\.http WARNING 421: refused a GET for host \"rebound\.example\.net\" "
        r"\(not a name this server answers: see public_url\)$", re.M)  # fmt: skip
    origin_line = re.compile(
        r"^\[worker pid \d+\] nanohubmcp\.http WARNING 403: refused a GET from origin \"https://evil\.example\.net\" "
        r"\(not an allowed origin\)$", re.M)  # fmt: skip
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        logs = cluster.logs()
        if len(set(host_line.findall(logs))) == 3 and origin_line.search(logs):
            break
        time.sleep(0.05)
    logs = cluster.logs()
    assert {int(pid) for pid in host_line.findall(logs)} == {s.proc.pid for s in cluster.servers}, logs
    assert origin_line.search(logs), logs
    assert not re.search(r"^refused", logs, re.M), logs  # no bare line left
