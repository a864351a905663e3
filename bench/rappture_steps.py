#!/usr/bin/env python3
"""Where a Rappture call's own time goes, step by step, in one otherwise idle process (no MCP, no client).

    .venv/bin/python bench/rappture_steps.py                      # wall ms of each step, 40 calls
    .venv/bin/python bench/rappture_steps.py --instructions 5     # and instructions of each (callgrind)
    .venv/bin/python bench/rappture_steps.py --timeline 10        # real runs of the 1 s tool: when what happens

**Steps** (the order ``RapptureTool.run`` does them in, taken apart; the tool is ``bench/rappture_tool`` with
``"10ms"`` of work): the arguments to the inputs' values (pint), the run directory, the driver file, argv and
environment, the spawn (``Popen`` until it returns), the program's run (its own, not ours: the 10 ms, its
interpreter's start and exit), reading the run file, parsing it, making the outputs, the result without the plot,
the plot (``pictures()``: draw and PNG, on a figure prepared while the program ran), the reply encoded
(``to_wire`` and the JSON text a server writes), the run directory removed (the helpers carrying the run's mark
stopped, then the files). Wall milliseconds: the median and minimum over the calls (the host is shared: the
minimum is the step's cost, the median what the load adds). Instructions: each step between two dumps of
valgrind's callgrind (``--dump-before=getppid``; every thread of the process, the figure thread's too; the
program's own are not counted), the median over the calls.

**Timeline** (``--timeline N``): ``RapptureTool.run`` of the one-second tool as a server runs it, with the plot,
its steps timed by wrapping the functions it calls (no change to it): when the program starts, prints its
``=RAPPTURE-RUN=>`` line, exits (``waitid`` without reaping), when the result was shaped (drawn while the program
exits) and when ``run`` returns; and, for scale, the command alone (``python work.py driver.xml``) and
``python -c pass``. Not a test: nothing asserts a figure.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
TOOL = ROOT / "bench" / "rappture_tool" / "tool.xml"


def one_call(seed: int, mark: Callable[[str], None], *, figure_made: bool = False) -> None:
    """One call's steps, ``mark(step)`` after each. ``figure_made``: wait, after the program, for the figure thread
    to finish the blank figure (under valgrind it runs at a fiftieth of its pace, and the plot would otherwise make
    a new figure of its own: 123 M instructions counted for the plot, of which 73 M were that figure)."""
    from nanohubmcp.protocol import jsonenc
    from nanohubmcp.sources.rappture import plots
    from nanohubmcp.sources.rappture.driver import current_values, write_driver
    from nanohubmcp.sources.rappture.execute import command_line, program_environment, run_program
    from nanohubmcp.sources.rappture.outputs import read_outputs, tool_result
    from nanohubmcp.sources.rappture.rundirs import RUN_MARK, record_group, remove_run_directory, run_directory

    tool = TOOL_LOADED[0]
    mark("(between calls)")
    values = current_values(tool.name, tool.inputs.arguments, {"seconds": "10ms", "seed": seed})
    mark("arguments to values (pint)")
    workdir = run_directory(tool.name)
    mark("run directory made")
    driver = workdir / "driver.xml"
    write_driver(tool.root, tool.inputs.arguments, values, driver)
    mark("driver file written")
    argv = command_line(tool.command, tool.directory, driver)
    env = {**program_environment(), RUN_MARK: str(workdir.resolve())}
    mark("argv and environment")

    def started(pgid: int) -> None:
        record_group(workdir, pgid)
        mark("spawn (Popen), group noted")
        plots.prepare(None)

    outcome = run_program(argv, cwd=workdir, env=env, timeout=60.0, on_start=started)
    mark("program runs and exits (its own)")
    if figure_made:
        while plots._filling:
            time.sleep(0.01)
        mark("(the figure thread finishing, under valgrind)")
    assert outcome.status == 0 and outcome.run_file is not None, outcome.log_tail()
    source = outcome.run_file.read_text(encoding="utf-8", errors="replace")
    mark("run file read")
    root = ET.fromstring(source.encode("utf-8"))
    mark("run file parsed (XML)")
    found = read_outputs(root, tool.name, None)
    mark("outputs made")
    tool_result(found, tool.name, plot=False)
    mark("result without the plot")
    result = tool_result(found, tool.name, plot=True)
    mark("result with the plot (draw + PNG)")
    jsonenc.dumps({"jsonrpc": "2.0", "id": 1, "result": result.to_wire()})
    mark("reply encoded (to_wire + JSON)")
    remove_run_directory(workdir)
    mark("run directory removed")


TOOL_LOADED: list[Any] = []


def load() -> None:
    from nanohubmcp.sources.rappture import load_rappture_tool, plots

    TOOL_LOADED.append(load_rappture_tool(TOOL, rappture=""))
    plots._library()  # imported, as in a server after its first call


def wall(calls: int) -> dict[str, dict[str, float]]:
    load()
    times: dict[str, list[float]] = {}
    last = [time.perf_counter()]

    def mark(step: str) -> None:
        now = time.perf_counter()
        times.setdefault(step, []).append((now - last[0]) * 1000)
        last[0] = now

    for seed in range(calls + 2):
        one_call(seed, mark)
        if seed < 2:  # warm-up calls
            times.clear()
        time.sleep(0.05)  # the figure thread done: the next call finds its figure made
    return {step: {"median": round(statistics.median(v), 3), "min": round(min(v), 3)}
            for step, v in times.items() if step != "(between calls)"}


def child(calls: int, names_file: str) -> None:
    """Under callgrind: each mark dumps the counts so far (os.getppid)."""
    load()
    names: list[str] = []

    def mark(step: str) -> None:
        names.append(step)
        os.getppid()

    for seed in range(calls + 2):
        one_call(seed, mark, figure_made=True)
        time.sleep(0.2)
    Path(names_file).write_text(json.dumps([*names, os.getpid()]))


def instructions(calls: int) -> dict[str, int]:
    with tempfile.TemporaryDirectory() as folder:
        names_file = f"{folder}/names.json"
        subprocess.run(["valgrind", "--tool=callgrind", "--dump-before=getppid", "--dump-instr=no",
                        f"--callgrind-out-file={folder}/cg.%p", f"--log-file={folder}/vg.log",
                        sys.executable, __file__, "--child", str(calls), names_file],
                       check=True, env={**os.environ, "PYTHONHASHSEED": "0"})
        names = json.loads(Path(names_file).read_text())
        child_pid = names.pop()  # (the spawned programs, forked under valgrind until their exec, dump too)
        dumps = sorted(Path(folder).glob(f"cg.{child_pid}.*"), key=lambda p: int(p.name.rsplit(".", 1)[1]))
        totals = [int(re.search(r"^(?:summary|totals): (\d+)", d.read_text(), re.M).group(1))  # type: ignore[union-attr]
                  for d in dumps[: len(names)]]  # dump k: from mark k - 1 (the first: the start) to mark k
    per: dict[str, list[int]] = {}
    first_counted = len(names) // (calls + 2) * 2  # the warm-up calls
    for name, total in list(zip(names, totals, strict=True))[first_counted:]:
        per.setdefault(name, []).append(total)
    return {name: int(statistics.median(v)) for name, v in per.items() if not name.startswith("(")}


def timeline(calls: int) -> dict[str, Any]:
    """Real runs of the one-second tool (``RapptureTool.run``, the plot on), their events timed."""
    from nanohubmcp.sources.rappture import tool as tool_module
    from nanohubmcp.sources.rappture.execute import program_environment

    load()
    tool = TOOL_LOADED[0]
    marks: dict[str, float] = {}

    def mark(event: str) -> None:
        marks.setdefault(event, time.perf_counter())

    real_run, real_noted, real_shape = tool_module.run_program, tool_module.record_group, tool_module.tool_result

    def run_program(argv: list[str], **options: Any) -> Any:
        told = options["on_run_file"]

        def on_run_file(path: Path) -> None:
            mark("run line seen")
            told(path)

        options["on_run_file"] = on_run_file
        return real_run(argv, **options)

    def record_group(run: Path, pgid: int) -> None:
        mark("program started")

        def waiter() -> None:
            try:
                os.waitid(os.P_PID, pgid, os.WEXITED | os.WNOWAIT)
            except ChildProcessError:
                return
            mark("program exited")

        threading.Thread(target=waiter, daemon=True).start()
        real_noted(run, pgid)

    def tool_result(*args: Any, **options: Any) -> Any:
        result = real_shape(*args, **options)
        mark("result shaped (plot drawn)")
        return result

    tool_module.run_program, tool_module.record_group, tool_module.tool_result = run_program, record_group, tool_result
    rows = []
    try:
        for seed in range(calls + 1):
            marks.clear()
            started = time.perf_counter()
            tool.run({"seconds": "1000ms", "seed": seed}, plot=True)
            marks["run returned"] = time.perf_counter()
            if seed:
                rows.append({k: (v - started) * 1000 for k, v in marks.items()})
            time.sleep(0.05)
    finally:
        tool_module.run_program, tool_module.record_group, tool_module.tool_result = (real_run, real_noted,
                                                                                       real_shape)
    events = sorted(rows[0], key=lambda k: statistics.median(r[k] for r in rows if k in r))
    figures: dict[str, Any] = {"calls": calls, "ms_after_the_call_began": {
        k: round(statistics.median(r[k] for r in rows if k in r), 1) for k in events}}
    gaps = {
        "program started": ("program started", None),
        "exit: run line to exit": ("program exited", "run line seen"),
        "shaping: run line to result shaped": ("result shaped (plot drawn)", "run line seen"),
        "after the exit: exit to run returned": ("run returned", "program exited"),
    }
    figures["ms"] = {name: round(statistics.median(r[a] - (r[b] if b else 0.0) for r in rows
                                                   if a in r and (b is None or b in r)), 1)
                     for name, (a, b) in gaps.items()}  # (the exit is missed when the run reaped it first)
    figures["ms"]["after the exit and the shaping: the last of them to run returned"] = round(statistics.median(
        r["run returned"] - max(r["result shaped (plot drawn)"], r.get("program exited", 0.0)) for r in rows), 1)
    alone: dict[str, list[float]] = {"python -c pass": [], "the command alone (python work.py driver.xml)": []}
    folder = Path(tempfile.mkdtemp(prefix="rappture-steps-"))
    try:
        driver = folder / "driver.xml"
        from nanohubmcp.sources.rappture.driver import current_values, write_driver

        write_driver(tool.root, tool.inputs.arguments,
                     current_values(tool.name, tool.inputs.arguments, {"seconds": "1000ms", "seed": 1}), driver)
        for _ in range(calls):
            for name, argv in (("python -c pass", [sys.executable, "-c", "pass"]),
                               ("the command alone (python work.py driver.xml)",
                                [sys.executable, str(TOOL.parent / "work.py"), str(driver)])):
                began = time.perf_counter()
                subprocess.run(argv, cwd=folder, env=program_environment(), capture_output=True, check=True)
                alone[name].append((time.perf_counter() - began) * 1000)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    figures["alone_ms"] = {k: round(statistics.median(v), 1) for k, v in alone.items()}
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--calls", type=int, default=40)
    parser.add_argument("--instructions", type=int, default=0, metavar="N")
    parser.add_argument("--timeline", type=int, default=0, metavar="N")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(int(args.child[0]), args.child[1])
        return 0
    load_before = os.getloadavg()[0]
    figures: dict[str, Any] = {"load_1min": round(load_before, 2)}
    if args.timeline:
        figures["timeline"] = timeline(args.timeline)
    else:
        figures["wall_ms"] = wall(args.calls)
        if args.instructions and shutil.which("valgrind"):
            figures["instructions"] = instructions(args.instructions)
    figures["load_1min_end"] = round(os.getloadavg()[0], 2)
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"1-minute load {figures['load_1min']} -> {figures['load_1min_end']}")
    if "timeline" in figures:
        line = figures["timeline"]
        print(f"{line['calls']} runs of the one-second tool, medians (ms):")
        for source in ("ms_after_the_call_began", "ms", "alone_ms"):
            for name, value in line[source].items():
                print(f"| {name} | {value} |")
        return 0
    counted = figures.get("instructions", {})
    print(f"{args.calls} calls, wall ms (median / min){', instructions (median)' if counted else ''}:")
    for step, row in figures["wall_ms"].items():
        extra = f" | {counted[step]:,}" if step in counted else ""
        print(f"| {step} | {row['median']} | {row['min']}{extra} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
