"""The child process reading the installed-distributions table (``provenance.distributions_read``) is never left
running, and a terminal's Ctrl-C does not end it (review r32 F1, F3).

- A ``pathlib.Path`` (or a ``bytes`` entry) in ``sys.path`` made ``json.dumps(sys.path)`` raise after the child had
  started: it was never recorded nor killed, and waited on its stdin for the process's whole life (the table was
  read in-process instead). The child is now given the entries as text (a ``bytes`` one left out), built before it
  starts, and reads the table itself.
- The child was in the server's process group: a Ctrl-C ended it too, and the table was then read in-process, on a
  non-daemon thread the exit waited for. It is now in a session of its own (the exit kills it), and a child ended
  by a signal all the same leaves no table rather than a read in-process.

Each runs in a process of its own (the table is read once per process), the read made slow by a real ``sys.path``
entry of many distributions (:mod:`slow_site`) where the test needs the child still reading.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from slow_site import slow_site

pytestmark = [pytest.mark.timeout(180), pytest.mark.slow]

CHILDREN = """
import json, os, signal, sys, threading, time
from pathlib import Path

def children():
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found

def in_own_session(pid):
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return False
    return int(fields[3]) == pid

def first_child(within=30.0):
    # a child counts once it is in its session of its own: between Popen's fork and the child's setsid() it is
    # still in this process group, where a Ctrl-C sent then reaches it (ci80, a loaded host)
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        found = [pid for pid in children() if in_own_session(pid)]
        if found:
            return found[0]
        time.sleep(0.01)
    raise SystemExit("no child started")
"""

PATH_ENTRY = CHILDREN + """
sys.path.append(Path(sys.argv[1]))   # an entry some tools append: a Path
sys.path.append(b"/nonexistent")     # and bytes (legal in sys.path)
from nanohubmcp.server.provenance import code_facts, distributions_read

def unread():
    raise RuntimeError("read in-process")

distributions_read.read_table = unread  # (this process's read only: the child runs a fresh interpreter)
table = code_facts.distributions(wait=True)
deadline = time.monotonic() + 5
while children() and time.monotonic() < deadline:
    time.sleep(0.02)
print(json.dumps({"pathmod": (table or {}).get("pathmod"), "children": children()}))
"""


def _run(script: str, *args: str, env: dict[str, str] | None = None) -> tuple[dict[str, Any], str, float]:
    """The JSON object the last line of ``script``'s stdout prints, its stderr, and the seconds from that line
    to the process's end."""
    process = subprocess.Popen([sys.executable, "-c", script, *args], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
    try:
        assert process.stdout is not None
        assert process.stderr is not None
        line = process.stdout.readline()
        printed = time.monotonic()
        process.wait(120)
        took = time.monotonic() - printed
        errors = process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert line, errors
    assert process.returncode == 0, errors
    return json.loads(line), errors, took


def test_a_path_in_sys_path_is_given_to_the_child_and_no_child_is_left(tmp_path: Path) -> None:
    info = tmp_path / "site" / "pathdist-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: pathdist\nVersion: 1.0\n")
    (info / "RECORD").write_text("pathmod.py,,\n")
    answer, errors, _ = _run(PATH_ENTRY, str(tmp_path / "site"))
    assert answer["pathmod"] == ["pathdist"], (answer, errors)  # read by the child, given the Path as text
    assert answer["children"] == [], answer  # (before: one, waiting on its stdin for the process's life)


CTRL_C = CHILDREN + """
from nanohubmcp.server.provenance import code_facts

code_facts.warm()
child = first_child()
try:
    os.killpg(0, signal.SIGINT)  # a terminal's Ctrl-C: the whole foreground process group
    time.sleep(30)
except KeyboardInterrupt:
    pass
here = False
deadline = time.monotonic() + 1.0  # (the read's fallback began within milliseconds of the child's end)
while time.monotonic() < deadline and not here:
    here = any(thread.name == "nanohubmcp-distributions-here" for thread in threading.enumerate())
    time.sleep(0.01)
print(json.dumps({"child": child, "alive": child in children(), "read_here": here}), flush=True)
"""

EXITED_WITHIN = 2.5
"""Seconds from the script's last line to its process's end at most (the table's read takes over 5 s here)."""


def test_ctrl_c_leaves_the_child_reading_and_the_exit_kills_it(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": slow_site(tmp_path / "site")}
    answer, errors, took = _run(CTRL_C, env=env)
    assert answer["alive"] is True, (answer, errors)  # (before: the Ctrl-C ended it)
    assert answer["read_here"] is False, answer  # (before: the table read in-process, the exit waiting for it)
    assert took < EXITED_WITHIN, f"the exit took {took:.1f} s"
    assert _ended(answer["child"]), "the child outlived the exit"


def _ended(pid: int, within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            if Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] == "Z":
                return True
        except OSError:
            return True
        time.sleep(0.02)
    return False


KILLED = CHILDREN + """
from nanohubmcp.server.provenance import code_facts

code_facts.warm()
child = first_child()
started = time.monotonic()
os.kill(child, signal.SIGKILL)  # the OOM killer, an operator: a child ended by a signal
table = code_facts.distributions(wait=True)
print(json.dumps({"table": table is not None, "waited": time.monotonic() - started}), flush=True)
"""


def test_a_child_ended_by_a_signal_leaves_no_table_and_no_read_in_process(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": slow_site(tmp_path / "site")}
    answer, errors, _ = _run(KILLED, env=env)
    assert answer["table"] is False, answer  # (before: read again in-process, over 5 s here)
    assert answer["waited"] < 5, answer
    assert "ended by signal 9" in errors, errors


def test_the_child_is_given_sys_paths_text_entries_only() -> None:
    from nanohubmcp.server.provenance import distributions_read

    added = [Path("/tmp/a-path-entry"), b"/tmp/a-bytes-entry"]
    sys.path.extend(added)  # type: ignore[arg-type]
    try:
        given = distributions_read.search_path()
    finally:
        for entry in added:
            sys.path.remove(entry)  # type: ignore[arg-type]
    assert "/tmp/a-path-entry" in given
    assert all(isinstance(entry, str) for entry in given)
