"""A fresh-user trial and a review: the byte limits took any whole number (numpy's ``int64``, ``5.0``, ``1e5``) as
the int, in ``MCPServer(...)`` and in ``%config NanohubMCP``, but the server's other counts did not.
``MCPServer(max_jobs=5.0)``, ``max_jobs=numpy.int64(5)``, ``max_stuck_calls=5.0``, ``workers=5.0``,
``job_workers=...``, ``list_page_size=...`` and ``run(workers=4.0)`` were refused ("must be a positive integer",
``list_page_size`` naming no value) while ``%config NanohubMCP.max_jobs = 5.0`` was taken, so a notebook's export
did not start. One rule now, for every count as for the byte limits: any whole number is the int; a bool, a number
that is not whole, NaN, inf, a string or a ``Decimal`` is refused in one line naming the setting, what it takes,
the value and what to write. Review r25 NIT-1: a byte limit whose None is no limit refused ``float("inf")`` while
it took ``10**400``; inf is that None now (as for ``tool_timeout``), and refused where None is."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from kernels import LiveKernel
from support import wait_until
from traitlets import TraitError

from nanohubmcp import MCPServer
from nanohubmcp.errors import ConfigurationError
from nanohubmcp.jupyter.config import NanohubMCP
from nanohubmcp.protocol.counts import COUNTS, takes
from nanohubmcp.testing import in_memory

np = pytest.importorskip("numpy")

KEPT: dict[str, Callable[[MCPServer], object]] = {
    "list_page_size": lambda server: server.core.list_page_size,
    "workers": lambda server: server.core.workers,
    "job_workers": lambda server: server.core.job_workers,
    "max_stuck_calls": lambda server: server.core.executor.max_stuck,  # type: ignore[attr-defined]
    "max_jobs": lambda server: server.core.job_service.jobs.max_jobs,
    "max_jobs_per_owner": lambda server: server.core.job_service.jobs.max_jobs_per_owner,
}
"""Each count of ``MCPServer`` -> where the built server holds the value it uses."""
NOTEBOOK = ("max_stuck_calls", "max_jobs", "max_jobs_per_owner")
"""The counts ``%config NanohubMCP`` sets too."""

WHOLE = [(5, 5), (np.int64(5), 5), (np.uint8(5), 5), (5.0, 5), (np.float64(5.0), 5), (Fraction(10, 2), 5),
         (1e3, 1000)]
REFUSED = [(5.5, "5.5; write a whole number: 6", "the float 5.5 (default {}); write a whole number: 6"),
           (Fraction(7, 2), "Fraction(7, 2); write a whole number: 4",
            "the Fraction Fraction(7, 2) (default {}); write a whole number: 4"),
           ("5", "'5'; write it as a number: 5", "the str '5' (default {}); write it as a number: 5"),
           (Decimal("5"), "Decimal('5'); write it as a number: 5",
            "the Decimal Decimal('5') (default {}); write it as a number: 5"),
           (True, "True", "the bool True (default {})"),
           (np.True_, "np.True_", "the bool np.True_ (default {})"),
           (math.nan, "nan", "the float nan (default {})"),
           (math.inf, "inf", "the float inf (default {})"),
           (-1, "-1", "-1 (default {})")]


def server_with(tmp_path: Path, setting: str, value: object) -> MCPServer:
    return MCPServer("counts", state_dir=str(tmp_path), job_store="memory", **{setting: value})


@pytest.mark.parametrize("setting", sorted(KEPT))
@pytest.mark.parametrize(("value", "number"), WHOLE, ids=repr)
def test_a_whole_number_of_any_type_is_the_int(tmp_path: Path, setting: str, value: object, number: int) -> None:
    held = KEPT[setting](server_with(tmp_path, setting, value))
    assert held == number
    assert type(held) is int
    if setting in NOTEBOOK:
        kept = getattr(NanohubMCP(**{setting: value}), setting)
        assert kept == number
        assert type(kept) is int


@pytest.mark.parametrize("setting", sorted(KEPT))
@pytest.mark.parametrize(("value", "by_the_server", "by_the_notebook"), REFUSED, ids=repr)
def test_anything_else_is_refused_in_one_line_naming_it(tmp_path: Path, setting: str, value: object,
                                                         by_the_server: str, by_the_notebook: str) -> None:
    with pytest.raises(ConfigurationError) as script:
        server_with(tmp_path, setting, value)
    assert str(script.value) == f"{setting} must be {takes(setting)}, not {by_the_server}"
    if setting in NOTEBOOK:
        with pytest.raises(TraitError) as notebook:
            NanohubMCP(**{setting: value})
        default = NanohubMCP.class_traits()[setting].default_value
        assert str(notebook.value) == (f"NanohubMCP.{setting} must be {takes(setting)}, not "
                                       f"{by_the_notebook.format(default)}")


@pytest.mark.parametrize("setting", sorted(KEPT))
def test_zero_is_taken_only_where_the_least_is_zero(tmp_path: Path, setting: str) -> None:
    least = COUNTS[setting][0]
    if least == 0:
        assert KEPT[setting](server_with(tmp_path, setting, 0.0)) == 0
        return
    with pytest.raises(ConfigurationError, match=rf"^{setting} must be a number of .* >= 1.*, not 0$"):
        server_with(tmp_path, setting, 0)


@pytest.mark.parametrize("setting", ["list_page_size", "workers", "job_workers"])
def test_none_is_the_default_where_a_count_takes_it(tmp_path: Path, setting: str) -> None:
    server = server_with(tmp_path, setting, None)
    assert setting != "list_page_size" or server.core.list_page_size is None
    assert server.core.workers >= 1


@pytest.mark.parametrize(("value", "said"), [(1.5, "1.5; write a whole number: 2"), (True, "True"),
                                             ("4", "'4'; write it as a number: 4"), (math.inf, "inf"), (0, "0")])
def test_run_refuses_a_worker_count_that_is_no_whole_number(value: object, said: str) -> None:
    server = MCPServer("run-workers")
    with pytest.raises(ConfigurationError) as refused:
        server.run(port=0, workers=value)  # type: ignore[arg-type]
    assert str(refused.value) == f"workers must be a number of processes >= 1, not {said}"


@pytest.mark.parametrize("value", [4.0, np.int64(4), Fraction(8, 2)], ids=repr)
def test_run_reads_a_whole_worker_count_of_any_type_as_the_int(value: object) -> None:
    server = MCPServer("run-workers")  # no shared store: refused for that, having read the count as 4
    with pytest.raises(ConfigurationError, match=r"^workers=4 needs a shared state store"):
        server.run(port=0, workers=value)  # type: ignore[arg-type]


@pytest.mark.parametrize("setting", ["max_inline_bytes", "max_result_bytes"])
@pytest.mark.parametrize("value", [math.inf, np.float64("inf")], ids=repr)
def test_inf_is_no_limit_where_none_is(setting: str, value: object) -> None:
    server = MCPServer("no-limit", **{setting: value})
    assert getattr(server.core.result_options, setting) is None
    assert getattr(NanohubMCP(**{setting: value}), setting) is None


@pytest.mark.parametrize("setting", ["max_kept_bytes", "max_kept_bytes_per_owner", "max_job_result_bytes",
                                     "cache_max_bytes", "max_inline_bytes", "max_result_bytes"])
def test_inf_is_refused_where_none_is_or_below_the_least(setting: str) -> None:
    value = -math.inf if setting in ("max_inline_bytes", "max_result_bytes") else math.inf
    with pytest.raises(ConfigurationError, match=rf"^{setting} must be a number of bytes >= [01].*, not {value}$"):
        MCPServer("refused", **{setting: value})
    with pytest.raises(TraitError, match=rf"^NanohubMCP\.{setting} must be .*, not the float {value} "):
        NanohubMCP(**{setting: value})


@pytest.mark.slow
def test_the_kernel_takes_and_refuses_what_the_script_does(kernel: LiveKernel) -> None:
    kernel.run_ok("import numpy as np")
    for line in ("max_jobs = np.int64(20)", "max_jobs_per_owner = 5.0", "max_stuck_calls = 1e1",
                 "max_result_bytes = float('inf')"):
        cell = kernel.run_ok(f"%config NanohubMCP.{line}")
        assert cell.stderr == "", line
    listing = kernel.run_ok("%config NanohubMCP").text
    for setting, value in (("max_jobs", 20), ("max_jobs_per_owner", 5), ("max_stuck_calls", 10),
                           ("max_result_bytes", None)):
        listed = rf"NanohubMCP\.{setting}=<Limit>\n(?:    .*\n)*?    Current: {value}\n"
        assert re.search(listed, listing), (setting, listing)
    kernel.run_ok("%mcp start")
    held = kernel.run_ok(
        "from nanohubmcp.jupyter.extension import current\n"
        "core = current().server.core\n"
        "jobs = core.job_service.jobs\n"
        "print([(type(n).__name__, n) for n in (jobs.max_jobs, jobs.max_jobs_per_owner, "
        "core.executor.max_stuck)], core.result_options.max_result_bytes)").text
    assert held.strip() == "[('int', 20), ('int', 5), ('int', 10)] None"
    for line, why in {"max_jobs = 5.5": "NanohubMCP.max_jobs must be a number of jobs >= 1, not the float 5.5 "
                                        "(default 10000); write a whole number: 6",
                      "max_stuck_calls = float('nan')": "NanohubMCP.max_stuck_calls must be a number of calls >= 0, "
                                                        "not the float nan (default 64)"}.items():
        cell = kernel.run_ok(f"%config NanohubMCP.{line}")
        assert cell.stderr == f"UsageError: {why}; the setting is unchanged\n", line


@pytest.mark.parametrize("text", ["4", "4.0", "4e0", " 40e-1 "])
def test_a_count_on_the_command_line_is_read_by_the_same_rule(text: str) -> None:
    from nanohubmcp.cli.parser import parse_arguments

    assert parse_arguments(["run", "app.py", "--workers", text]).workers == 4
    assert parse_arguments(["provenance", "list", "--limit", text]).limit == 4


@pytest.mark.parametrize("text", ["4.5", "inf", "nan", "True", "1e999999999"])
def test_a_count_on_the_command_line_that_is_no_whole_number_is_a_usage_error(
        text: str, capsys: pytest.CaptureFixture[str]) -> None:
    from nanohubmcp.cli.parser import parse_arguments

    with pytest.raises(SystemExit) as ended:
        parse_arguments(["run", "app.py", "--workers", text])
    assert ended.value.code == 2
    from nanohubmcp.transports.limit_option import most_workers

    takes = f"a number of processes from 1 to {most_workers()} (8 per CPU, never fewer than 64)"
    written = "; write a whole number: 5" if text == "4.5" else ""
    assert f"argument --workers: must be {takes}, not {text!r}{written}" in capsys.readouterr().err


@pytest.mark.parametrize("value", [0.0, np.int64(0), Fraction(0)], ids=repr)
def test_a_port_of_any_whole_number_type_is_the_int(value: object) -> None:
    server = MCPServer("port").start(port=value)  # type: ignore[arg-type]
    try:
        assert type(server.port) is int
        assert server.port > 0
    finally:
        server.stop()
    kept = NanohubMCP(port=np.int64(9000)).port
    assert (kept, type(kept)) == (9000, int)
    assert NanohubMCP(port=9000.0).port == 9000


@pytest.mark.parametrize(("value", "said"), [(8000.5, "8000.5; write a whole number: 8001"), (math.inf, "inf"),
                                             (math.nan, "nan"), (True, "True")], ids=repr)
def test_a_port_that_is_no_whole_number_is_refused_in_one_line(value: object, said: str) -> None:
    """8000.5 was served on port 8000, and inf raised a bare ``OverflowError``; ``%config`` refused both in
    traitlets' own words ("expected an int")."""
    with pytest.raises(ConfigurationError) as refused:
        MCPServer("port").start(port=value)  # type: ignore[arg-type]
    assert str(refused.value) == f"port must be a whole number between 0 and 65535 (0: any free port), not {said}"
    with pytest.raises(TraitError) as notebook:
        NanohubMCP(port=value)
    assert str(notebook.value).startswith("NanohubMCP.port must be between 0 and 65535 (0 = any free port), not the ")


@pytest.mark.parametrize("setting", ["max_jobs", "max_jobs_per_owner"])
@pytest.mark.parametrize("value", [1e30, 10**30], ids=repr)
def test_a_job_bound_past_the_stores_integers_runs_jobs(tmp_path: Path, setting: str, value: object) -> None:
    """``max_jobs=1e30`` (or ``10**30``, or ``%config NanohubMCP.max_jobs = 1e30``) was taken and every job call then
    failed: "Python int too large to convert to SQLite INTEGER". Such a bound is the stores' largest, never reached."""
    server = MCPServer("big-bound", state_dir=str(tmp_path), **{setting: value})

    @server.async_tool()
    def double(x: int) -> int:
        """Twice x."""
        return 2 * x

    with in_memory(server) as client:
        started = client.call_tool("double", {"x": 21})
        assert not started.get("isError"), started
        job_id = started["structuredContent"]["job_id"]

        def ended() -> dict[str, object] | None:
            polled = client.call_tool("get_job_result", {"job_id": job_id})["structuredContent"]
            return polled if polled["status"] != "running" else None

        polled = wait_until(ended, "the job ended", timeout=30)
    assert (polled["status"], polled["result"]) == ("done", 42)
    assert getattr(server.core.job_service.jobs, setting) == 10**17


@pytest.mark.parametrize("value", [4.0, np.int64(4), Fraction(8, 2)], ids=repr)
def test_an_executors_count_of_any_whole_number_type_is_the_int(tmp_path: Path, value: object) -> None:
    """``executor_options={"cpus_per_task": 4.0}`` (slurm) and ``cores``/``ppn`` (submit) were refused ("must be a
    positive whole number, not 4.0") while every count of the server takes them."""
    from nanohubmcp.nanohub import SubmitRun
    from nanohubmcp.server.executors.submit_run import command_line

    argv = command_line(SubmitRun(["sim"], cores=value), {"ppn": value}, tmp_path)  # type: ignore[arg-type]
    assert argv[argv.index("-n") + 1] == "4"
    assert argv[argv.index("-N") + 1] == "4"
    server = MCPServer("slurm-counts", state_dir=str(tmp_path), job_executor="slurm",
                       executor_options={"cpus_per_task": value, "gpus": value})
    options = server.core.job_service.runners.default.options  # type: ignore[attr-defined]
    assert [(options[key], type(options[key])) for key in ("cpus_per_task", "gpus")] == [(4, int), (4, int)]


@pytest.mark.parametrize(("value", "said"), [(2.5, "2.5; write a whole number: 3"), (True, "True"), (math.nan, "nan"),
                                             ("4", "'4'; write it as a number: 4"), (0, "0")], ids=repr)
def test_an_executors_count_that_is_no_whole_number_is_refused_saying_what_to_write(value: object, said: str) -> None:
    with pytest.raises(ConfigurationError) as refused:
        MCPServer("slurm-counts", job_executor="slurm", executor_options={"gpus": value})
    assert str(refused.value) == f"slurm option gpus must be a positive whole number, not {said}"
