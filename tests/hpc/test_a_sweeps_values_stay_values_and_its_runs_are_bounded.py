"""A ``submit`` sweep's values from a client stay values, and a sweep's runs are bounded (review r41 R41-6).

A list of one value was joined to that value alone, and ``submit`` reads ``-p @@cap=A:B:C`` as a range
whenever the text is three numbers: the documented tool ``charge_curve(capacitances: list[str])``, called
with ``["1:1:100000"]``, asked the venue for 100,000 runs on the session owner's allocation. A list item
that ``submit`` would read as a range or a ``glob:`` pattern is now refused, before ``submit`` starts; a
range the tool passes as a string is counted, and a sweep of more runs than ``max_runs`` (default 1,000)
is refused saying how many it would make.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from jobs.job_server import Routes
from support import serve

from nanohubmcp import MCPServer
from nanohubmcp.errors import ConfigurationError
from nanohubmcp.nanohub import SubmitRun
from nanohubmcp.server.executors.submit_run import command_line

ECHO = "import sys\nprint(sys.argv[1])\n"


def sweep(parameters: dict[str, Any], **options: Any) -> list[str]:
    return command_line(SubmitRun(["sim", "@@cap"], parameters=parameters), options, Path("/tmp"))


@pytest.mark.parametrize("value", ["1:1:100000", " 0:1e-9:1 ", "-5:+.5:5E3", "glob:*", "GLOB:/etc/*"])
def test_a_list_value_submit_would_read_as_a_range_or_pattern_is_refused(value: str) -> None:
    with pytest.raises(ConfigurationError, match=r"sweep parameter 'cap': the value .* would be read by submit as"):
        sweep({"cap": [value]})
    with pytest.raises(ConfigurationError, match=r"the value .* would be read by submit as"):
        sweep({"cap": ["1pf", value]})


def test_values_and_ranges_are_counted_and_bounded() -> None:
    assert sweep({"cap": ["1:2", "a:b:c", "10pf"]})[-4:] == ["-p", "@@cap=1:2,a:b:c,10pf", "sim", "@@cap"]
    assert "@@cap=0:0.5:2" in sweep({"cap": "0:0.5:2"}, max_runs=5)  # 5 runs: as many as allowed
    with pytest.raises(ConfigurationError, match=r"the sweep makes 6 runs \(cap: 6\); at most 5 .*max_runs"):
        sweep({"cap": "0:0.5:2.5"}, max_runs=5)
    with pytest.raises(ConfigurationError, match=r"makes 100000 runs \(cap: 100000\); at most 1000"):
        sweep({"cap": "1:1:100000"})
    with pytest.raises(ConfigurationError, match=r"makes 100000000\d runs"):
        sweep({"cap": "0:1e-9:1"})
    with pytest.raises(ConfigurationError, match=r"makes 1100 runs \(cap: 11 x v: 100\)"):
        command_line(SubmitRun(["sim"], parameters={"cap": [str(i) for i in range(11)], "v": "1:1:100"}), {}, Path())
    with pytest.raises(ConfigurationError, match=r"the range 1:0:5 \(start:step:end\) never reaches its end"):
        sweep({"cap": "1:0:5"})
    with pytest.raises(ConfigurationError, match=r"the range 5:1:1 .* never reaches its end"):
        sweep({"cap": "5:1:1"})
    with pytest.raises(ConfigurationError, match="max_runs must be a positive whole number"):
        MCPServer("x", job_executor="submit", executor_options={"max_runs": 0})


def test_a_clients_range_in_a_list_starts_no_submit(standin_submit: Path, tmp_path: Path) -> None:
    (tmp_path / "echo.py").write_text(ECHO)
    server = MCPServer("sweep-values", state_dir=str(tmp_path / "state"), job_executor="submit")

    @server.async_tool()
    def charge_curve(capacitances: list[str]) -> SubmitRun:
        """One run per capacitance."""
        return SubmitRun([sys.executable, str(tmp_path / "echo.py"), "@@cap"], parameters={"cap": capacitances})

    with serve(server) as url:
        routes = Routes(int(url.rsplit(":", 1)[1].strip("/")))
        session = routes.session()
        reply = routes.rpc(session, "tools/call", {"name": "charge_curve", "arguments": {"capacitances": ["1:1:5"]},
                                                   "task": {}})
        refused = routes.rpc(session, "tasks/result", {"taskId": reply["result"]["task"]["taskId"]})["result"]
        assert refused["isError"], refused
        assert "would be read by submit as a range" in refused["content"][0]["text"], refused
        assert list(standin_submit.iterdir()) == []  # submit never started
        ok = routes.rpc(session, "tools/call", {"name": "charge_curve", "arguments": {"capacitances": ["1", "2"]},
                                                "task": {}})
        result = routes.rpc(session, "tasks/result", {"taskId": ok["result"]["task"]["taskId"]})["result"]
    assert [r["stdout"].strip() for r in result["structuredContent"]["runs"]] == ["1", "2"]
