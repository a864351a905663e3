"""A curve whose xy data is not pairs of numbers fails the run, naming the curve (trial 67, F10).

A program writing ``output.curve(odd).component.xy`` as ``"1 2 3\\n4 5\\nx y\\n"`` was answered ``status: ok`` with
``"y": [2.0, 4.0, "x"]`` (a word inside numeric data) and its last value dropped, without a word. Rappture's own
curve reads the data into a numeric vector, which fails on a word, and drops a component whose x and y differ in
length: the output is broken, so the run is a tool error naming the curve and what is wrong. A histogram's x may be
labels, and stays as it was.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from nanohubmcp.errors import ToolError
from nanohubmcp.sources.rappture import load_rappture_tool

TOOL = """<?xml version="1.0"?>
<run>
  <tool><title>Curves</title><command>{python} @tool/curve.py @driver</command></tool>
  <input><string id="xy"><default>1 2</default></string></input>
</run>
"""

PROGRAM = """import sys
import Rappture
io = Rappture.library(sys.argv[1])
io.put("output.curve(odd).component.xy", io.get("input.string(xy).current"))
io.put("output.histogram(bars).component.xy", "low 1 high 2")
Rappture.result(io)
"""


@pytest.fixture
def tool(tmp_path: Path):  # type: ignore[no-untyped-def]
    (tmp_path / "tool.xml").write_text(TOOL.format(python=sys.executable))
    (tmp_path / "curve.py").write_text(PROGRAM)
    return load_rappture_tool(tmp_path / "tool.xml")


@pytest.mark.parametrize(("xy", "said"), [
    ("1 2 3 4 5 x y", r"holds 'x' \(value 6 of 7\), which is not a number"),
    ("1 2 3 4 5", "holds 5 numbers, an odd count"),
])
def test_a_broken_curve_is_a_tool_error_naming_it(tool, xy: str, said: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ToolError, match="its output curve 'odd' cannot be read: its xy data " + said):
        tool.run({"xy": xy}, plot=False)


def test_pairs_of_numbers_and_histogram_labels_still_read(tool) -> None:  # type: ignore[no-untyped-def]
    outputs = tool.run({"xy": "1 2\n3 4"}, plot=False).to_wire()["structuredContent"]["outputs"]
    assert (outputs["odd"]["x"], outputs["odd"]["y"]) == ([1.0, 3.0], [2.0, 4.0])
    assert outputs["bars"]["x"] == ["low", "high"]
