"""The run file is read, and its plots drawn, as soon as the program names it, while it exits.

Issue 28: a Rappture call at most 1.05x its command alone. A program prints ``=RAPPTURE-RUN=>``
once its run file is written; its interpreter then takes 5-30 ms to exit, time in which the plot is
drawn. That result stands only if the program then exits with 0 and leaves the file as it was.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from support import running

from nanohubmcp.errors import ToolError
from nanohubmcp.sources.rappture import load_rappture_tool
from nanohubmcp.sources.rappture import tool as tool_module
from nanohubmcp.sources.rappture.execute import COMPAT_PATH

pytest.importorskip("matplotlib")

HERE = Path(__file__).parent

TOOL = """<?xml version="1.0"?>
<run>
  <tool><command>python @tool/program.py @driver</command></tool>
  <input><string id="after"><default>wait</default></string></input>
  <output><curve id="c"/></output>
</run>
"""

# Writes a run file with a curve, its pid and its directory, prints the =RAPPTURE-RUN=> line, then:
# "wait": waits (at most 20 s) for a file "go" in its directory before exiting 0;
# "rewrite": writes the run file again with another curve, then exits 0;
# "fail": exits 3; anything else: exits 0 at once.
PROGRAM = """
import os, sys, time
import xml.etree.ElementTree as ET

after = ET.parse(sys.argv[1]).getroot().findtext("input/string/current") or "wait"

def write(ys):
    points = " ".join(f"{x} {y}" for x, y in zip(range(len(ys)), ys))
    with open("run1.xml", "w") as f:
        f.write(f'''<run><output>
<curve id="c"><about><label>C</label></about><component><xy>{points}</xy></component></curve>
<string id="pid"><current>{os.getpid()}</current></string>
<string id="where"><current>{os.getcwd()}</current></string>
</output></run>''')

write([0.0, 1.0, 0.0])
print("=RAPPTURE-RUN=>run1.xml", flush=True)
if after == "wait":
    deadline = time.monotonic() + 20
    while not os.path.exists("go") and time.monotonic() < deadline:
        time.sleep(0.01)
elif after == "rewrite":
    write([5.0, 6.0, 7.0, 8.0])
elif after == "fail":
    sys.exit(3)
"""


@pytest.fixture
def program(tmp_path: Path) -> Any:
    (tmp_path / "tool.xml").write_text(TOOL)
    (tmp_path / "program.py").write_text(PROGRAM)
    return load_rappture_tool(tmp_path / "tool.xml", rappture="")


def test_the_result_is_shaped_and_the_plot_drawn_while_the_program_still_runs(
    program: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    shaped: list[tuple[bool, bool]] = []  # (the program still running, a plot in the result) per shaping
    real = tool_module.tool_result

    def watching(found: Any, *args: Any, **options: Any) -> Any:
        result = real(found, *args, **options)
        pid, where = int(found.data["pid"]["value"]), Path(found.data["where"]["value"])
        shaped.append((running(pid), any(b.get("type") == "image" for b in result.to_wire()["content"])))
        (where / "go").touch()  # lets the program end
        return result

    monkeypatch.setattr(tool_module, "tool_result", watching)

    result = program.run({"after": "wait"}).to_wire()

    assert shaped == [(True, True)]  # once, before the program ended; not again after
    assert result["structuredContent"]["outputs"]["c"]["y"] == [0.0, 1.0, 0.0]


def test_a_run_file_written_again_after_the_line_is_read_again(program: Any) -> None:
    result = program.run({"after": "rewrite"}).to_wire()

    assert result["structuredContent"]["outputs"]["c"]["y"] == [5.0, 6.0, 7.0, 8.0]
    assert any(b["type"] == "image" for b in result["content"])


def test_a_program_that_fails_after_naming_its_run_file_is_an_error(program: Any) -> None:
    with pytest.raises(ToolError, match=r"failed \(exit status 3\)"):
        program.run({"after": "fail"})


def test_without_a_plot_the_run_file_is_still_read_as_the_program_exits(
    program: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    alive: list[bool] = []
    real = tool_module.read_outputs

    def watching(root: Any, *args: Any) -> Any:
        found = real(root, *args)
        alive.append(running(int(found.data["pid"]["value"])))
        (Path(found.data["where"]["value"]) / "go").touch()
        return found

    monkeypatch.setattr(tool_module, "read_outputs", watching)

    result = program.run({"after": "wait"}, plot=False).to_wire()

    assert alive == [True]
    assert not any(b["type"] == "image" for b in result["content"])
    assert os.path.basename(result["structuredContent"]["outputs"]["where"]["value"]).startswith("rappture-")


def counting_parses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    sizes: list[int] = []
    real = tool_module.RapptureTool._parse

    def parse(self: Any, source: str) -> Any:
        sizes.append(len(source))
        return real(self, source)

    monkeypatch.setattr(tool_module.RapptureTool, "_parse", parse)
    return sizes


def test_the_run_file_is_parsed_once_a_call(program: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A run file can be large (fields, meshes): reading it early must not parse it twice.
    parses = counting_parses(monkeypatch)
    assert program.run({"after": "exit"}).to_wire()["structuredContent"]["outputs"]["c"]["y"] == [0.0, 1.0, 0.0]
    assert len(parses) == 1

    bin_dir = tmp_path / "bin"  # on a hub (the stand-in rappture -execute prints the run file at its end)
    bin_dir.mkdir()
    (bin_dir / "rappture").symlink_to(HERE / "standin" / "rappture")
    (bin_dir / "python").symlink_to(sys.executable)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("PYTHONPATH", str(COMPAT_PATH))
    on_a_hub = load_rappture_tool(program.path, rappture=str(bin_dir / "rappture"))
    parses.clear()
    assert on_a_hub.run({"after": "exit"}).to_wire()["structuredContent"]["outputs"]["c"]["y"] == [0.0, 1.0, 0.0]
    assert len(parses) == 1
