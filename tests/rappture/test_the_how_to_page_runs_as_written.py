"""docs/how-to/rappture.md runs as written and prints what it says: its Python blocks, in order, in
one namespace, from the repository's root (tests/docs runs every block of every page; this test also
checks what these print)."""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

import pytest

pytest.importorskip("pint")
pytest.importorskip("matplotlib")

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "how-to" / "rappture.md"
BLOCK = re.compile(r"(<!-- not-run:[^>]*-->\n)?```(\w+)\n(.*?)```", re.S)


def test_every_python_block_of_the_page_runs() -> None:
    blocks = [(lang, code) for skip, lang, code in BLOCK.findall(PAGE.read_text()) if not skip and lang == "python"]
    assert len(blocks) >= 4  # the shell blocks are run by tests/docs (a served command in the background)
    namespace: dict[str, object] = {}
    printed = io.StringIO()
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(printed):
            for _, code in blocks:
                exec(compile(code, str(PAGE), "exec"), namespace)
    finally:
        os.chdir(here)
        server = namespace.get("server")
        if server is not None:
            server.stop()  # type: ignore[attr-defined]
    out = printed.getvalue()
    assert "fermi ['Ef', 'temperature']" in out
    assert "300 {'hit': False}\n'300 K' {'hit': True}\n'26.85C' {'hit': True}\n" in out
    assert "curve 201 {'x': '', 'y': 'eV'} {'x': 'Occupancy', 'y': 'Energy'}" in out
    assert "'image'" in out
    assert "fermi_job True" in out
