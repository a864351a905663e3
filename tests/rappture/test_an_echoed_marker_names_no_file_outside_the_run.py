"""A program echoing a caller's string cannot make the server read a file the caller chose (review r41, R41-2, R41-7).

Off a hub the run file is the one a ``=RAPPTURE-RUN=>`` line names. The line counted anywhere in any
line of standard output, and its name was joined to the run directory as given: a program printing its
inputs (many do) let a client name ``/any/file.xml`` or ``../../file.xml``: the server read it whole (a
1 GiB file into memory, a FIFO blocking the run loop for good) and answered its XML as the tool's
outputs. Now the marker counts only as a whole line, only a bare file name in the run directory is
opened, without following a link or waiting on a FIFO, and at most ``RUN_FILE_LIMIT`` bytes are read.
A ``=RAPPTURE-PROGRESS=>`` line counts only at a line's start; a percentage past a double's range (read as
``inf``) failed the call with a 500: it is dropped, others are clamped to 0-100, and messages are cut.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from nanohubmcp import ToolError
from nanohubmcp.sources.rappture import load_rappture_tool
from nanohubmcp.sources.rappture.execute import PROGRESS_MESSAGE_CHARS
from nanohubmcp.sources.rappture.rundirs import RunFileRefused, read_run_file

TOOL = """<?xml version="1.0"?>
<run>
  <tool><id>echo</id><command>python @tool/echo.py @driver</command></tool>
  <input>
    <string id="title"><about><label>Title</label></about><default>none</default></string>
    <boolean id="after"><about><label>After</label></about><default>no</default></boolean>
    <boolean id="result"><about><label>Result</label></about><default>yes</default></boolean>
  </input>
  <output><string id="seen"><about><label>Seen</label></about></string></output>
</run>
"""

PROGRAM = """import sys
import Rappture

driver = Rappture.library(sys.argv[1])
title = driver.get("input.string(title).current")
after = driver.get("input.boolean(after).current") in ("yes", "on", "true", "1")
result = driver.get("input.boolean(result).current") in ("yes", "on", "true", "1")
driver.put("output.string(seen).current", "the tool's own")
if not after:
    print(title, flush=True)
if result:
    Rappture.result(driver)
if after:
    print(title, flush=True)
"""

OTHER = """<?xml version="1.0"?>
<run><output><string id="seen"><current>SECRET-OF-ANOTHER-FILE</current></string></output></run>
"""


@pytest.fixture
def tool_xml(tmp_path: Path) -> Path:
    (tmp_path / "echo.py").write_text(PROGRAM)
    (tmp_path / "other.xml").write_text(OTHER)
    path = tmp_path / "tool.xml"
    path.write_text(TOOL)
    return path


def seen(result: dict[str, Any]) -> str:
    assert not result["isError"], result
    return str(result["structuredContent"]["outputs"]["seen"]["value"])


def test_a_path_echoed_after_the_run_line_is_not_read_as_the_run_file(tool_xml: Path) -> None:
    tool = load_rappture_tool(tool_xml, rappture="")
    other = tool_xml.parent / "other.xml"
    for named in (str(other), f"../../{other.relative_to(other.anchor)}", "../other.xml", ".hidden.xml"):
        answer = tool.run({"title": f"=RAPPTURE-RUN=>{named}", "after": True}, plot=False).to_wire()
        assert seen(answer) == "the tool's own", named
        assert "SECRET" not in json.dumps(answer)


def test_a_marker_inside_a_line_is_not_a_marker(tool_xml: Path) -> None:
    tool = load_rappture_tool(tool_xml, rappture="")
    other = tool_xml.parent / "other.xml"
    answer = tool.run({"title": f"Title: =RAPPTURE-RUN=>{other}", "after": True}, plot=False).to_wire()
    assert seen(answer) == "the tool's own"


def test_a_run_line_naming_only_a_path_is_said_and_never_opened(tool_xml: Path) -> None:
    tool = load_rappture_tool(tool_xml, rappture="")
    other = tool_xml.parent / "other.xml"
    with pytest.raises(ToolError) as caught:
        tool.run({"title": f"=RAPPTURE-RUN=>{other}", "result": False}, plot=False)
    message = str(caught.value)
    assert "is not a file name in its working directory" in message, message
    assert "SECRET" not in message


def test_a_run_file_is_read_only_if_a_regular_file_within_the_limit(tmp_path: Path) -> None:
    regular = tmp_path / "run1.xml"
    regular.write_text("<run/>")
    assert read_run_file(regular) == "<run/>"
    assert read_run_file(tmp_path / "missing.xml") == ""
    link = tmp_path / "run2.xml"
    link.symlink_to(regular)
    with pytest.raises(RunFileRefused, match="symbolic link"):
        read_run_file(link)
    fifo = tmp_path / "run3.xml"
    os.mkfifo(fifo)
    with pytest.raises(RunFileRefused, match="not a regular file"):
        read_run_file(fifo)  # (before: open() waited for a writer, for good)
    with pytest.raises(RunFileRefused, match="over the"):
        read_run_file(regular, limit=3)


def test_a_progress_line_past_a_doubles_range_is_dropped_and_messages_are_cut(tool_xml: Path) -> None:
    tool = load_rappture_tool(tool_xml, rappture="")
    seen_progress: list[tuple[float, str]] = []
    for title in ("=RAPPTURE-PROGRESS=>" + "9" * 400 + " huge", "=RAPPTURE-PROGRESS=>250 over",
                  "=RAPPTURE-PROGRESS=>40 " + "x" * 5000, "say =RAPPTURE-PROGRESS=>60 inside"):
        answer = tool.run({"title": title}, plot=False,
                          on_progress=lambda p, m: seen_progress.append((p, m))).to_wire()
        assert seen(answer) == "the tool's own"
    assert [p for p, _ in seen_progress] == [100.0, 40.0]
    assert seen_progress[0][1] == "over"
    assert seen_progress[1][1] == "x" * PROGRESS_MESSAGE_CHARS
