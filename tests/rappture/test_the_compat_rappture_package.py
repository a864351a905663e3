"""The ``Rappture`` package nanohubmcp puts on a Python tool's path off-hub: the parts of Rappture's
Python API tool programs use, read and written as Rappture's library does (paths ``type(id)``,
``(id)``, ``typeN``, ``type#``; ``append``; ``PyXml`` nodes; units through pint; the progress and
run-file lines the runner reads); and a call that is cancelled stops the program."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from nanohubmcp import ToolError
from nanohubmcp.sources.rappture import load_rappture_tool
from nanohubmcp.sources.rappture.compat import Rappture

pytest.importorskip("pint")

DRIVER = """<?xml version="1.0"?>
<run><input>
  <number id="Ef"><units>eV</units><current>3eV</current></number>
  <group id="g"><number id="T"><current>300K</current></number></group>
  <string><current>first</current></string><string><current>second</current></string>
</input></run>"""


def test_library_paths_read_and_write_like_rappture_s(tmp_path: Path) -> None:
    lib = Rappture.library(DRIVER)
    assert lib.get("input.number(Ef).current") == "3eV"
    assert lib.get("input.(Ef).current") == "3eV"  # (id) alone: any element with that id
    assert lib.get("input.group(g).(T).current") == "300K"
    assert lib.get("input.string1.current") == "second"  # typeN: the N-th, from 0
    assert lib.get("input.number(missing).current") is None
    assert lib.element("input.(Ef)", type="type") == "number"
    assert lib.element("input.(Ef)", type="component") == "number(Ef)"
    assert lib.children("input", type="id") == ["Ef", "g", "string", "string"]
    lib.put("output.curve(f).component.xy", "1 2\n")
    lib.put("output.curve(f).component.xy", "3 4\n", append=1)
    assert lib.get("output.curve(f).component.xy") == "1 2\n3 4"
    lib.put("output.log#", "one")
    lib.put("output.log#", "two")  # '#': a new element each time
    assert [c.get() for c in lib.children("output", rtype="log")] == ["one", "two"]
    assert lib.remove("input.string1") is not None
    assert lib.get("input.string1.current") is None
    assert lib.xml().startswith('<?xml version="1.0"?>')
    with pytest.raises(ValueError, match="bad path component"):
        lib.get("input.number(Ef.current")


def test_pyxml_units_progress_and_result(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    driver = tmp_path / "driver.xml"
    driver.write_text(DRIVER)
    rx = Rappture.PyXml(str(driver))
    ef = rx["input.number(Ef)"]
    assert ef["current"].value == "3eV"
    assert ef["current"].name == "input.number(Ef).current"
    assert Rappture.Units.convert(ef["current"].value, to="meV", units="off") == pytest.approx(3000)
    assert Rappture.Units.convert("25C", to="K") == "298.15K"
    assert Rappture.Units.convert("5", to="K", units="off") == 5.0  # a bare number is in the target units
    with pytest.raises(ValueError, match="units that fit"):
        Rappture.Units.convert("3eV", to="K")
    rx["output.histogram(h).component.xy"] = (["Tigers", "Bears"], [5, 7])
    assert rx["output.histogram(h).component.xy"].value == "Tigers 5\nBears 7"
    Rappture.Utils.progress(42.7, "Solving")
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        rx.close()
    finally:
        os.chdir(here)
    out = capsys.readouterr().out
    assert "=RAPPTURE-PROGRESS=>42 Solving\n" in out
    run_file = out.split("=RAPPTURE-RUN=>")[1].strip()
    run = Rappture.library(str(tmp_path / run_file))
    assert run.get("output.status") == "ok"
    os.chdir(tmp_path)
    try:
        rx.lib.result(1)  # Rappture's library.result(status): a failed run
    finally:
        os.chdir(here)
    failed = capsys.readouterr().out.split("=RAPPTURE-RUN=>")[1].strip()
    assert Rappture.library(str(tmp_path / failed)).get("output.status") == "failed"
    assert run.get("tool.version.rappture.language") == "python"
    encoded = Rappture.encoding.encode(b"\x00binary", Rappture.RPENC_ZB64)
    assert encoded.startswith("@@RP-ENC:zb64\n")
    assert Rappture.encoding.decode(encoded) == b"\x00binary"
    assert Rappture.encoding.isbinary(b"\x00binary")


def test_a_cancelled_call_stops_the_program() -> None:
    tool = load_rappture_tool(Path(__file__).parent / "tools" / "fermi" / "tool.xml", rappture="")
    started = threading.Event()

    def progress(percent: float, message: str) -> None:
        started.set()

    with pytest.raises(ToolError, match="was cancelled and stopped"):
        tool.run({"mode": "hang"}, on_progress=progress, cancelled=started.is_set)
