"""trial80 F5: the server's log wrote an exception's message on one line, but not its notes (``e.add_note(f"while
reading {name}")``, PEP 678) nor the message of an exception group's member: the client's newline (CR, U+2028, NEL
in a group) started a line of its own there, a forged log line. Each note and each message is written as one
line; the traceback keeps its own lines and the group its frame."""

from __future__ import annotations

import json
import logging
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from nanohubmcp.processes.log_lines import LogLines
from tests.support import app_server, wait_until

SENT = "Si\x1b[2J\nINFO     nanohubmcp: FORGED admin\r\u2028x\x85y"
WRITTEN = "Si\\u001b[2J\\u000aINFO     nanohubmcp: FORGED admin\\u000d\\u2028x\\u0085y"


def noted(name: str) -> None:
    error = RuntimeError("plain")
    error.add_note(f"while reading {name}")
    raise error


def grouped(name: str) -> None:
    raise ExceptionGroup(f"group {name}", [ValueError(f"inner {name}")])  # noqa: F821 (3.11 on)


def written(fail: object) -> str:
    try:
        fail(SENT)  # type: ignore[operator]
    except Exception:
        record = logging.LogRecord("nanohubmcp", logging.ERROR, __file__, 1, "tool failed", None, sys.exc_info())
    return LogLines("%(levelname)s %(message)s").format(record)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="notes and exception groups are Python 3.11's")
@pytest.mark.parametrize(("fail", "lines"), [
    (noted, ["RuntimeError: plain", f"while reading {WRITTEN}"]),
    (grouped, [f"  | ExceptionGroup: group {WRITTEN} (1 sub-exception)", "  +-+---------------- 1 ----------------",
               f"    | ValueError: inner {WRITTEN}", "    +------------------------------------"]),
])
def test_each_note_and_each_members_message_is_one_line(fail: object, lines: list[str]) -> None:
    log = written(fail)
    assert not [line for line in log.splitlines() if "FORGED" in line and not line.endswith(WRITTEN)
                and not line.endswith(f"{WRITTEN} (1 sub-exception)")], log
    assert log.splitlines()[-len(lines):] == lines, log
    assert log.splitlines()[0] == "ERROR tool failed"
    assert "Traceback (most recent call last):" in log


APP = '''\
from nanohubmcp import MCPServer

server = MCPServer("notes")


@server.tool()
def lookup(name: str) -> str:
    """Look up a material by name."""
    error = RuntimeError("plain")
    error.add_note(f"while reading {name}")
    raise error
'''


@pytest.mark.skipif(sys.version_info < (3, 11), reason="notes are Python 3.11's")
def test_served_a_clients_newline_in_a_note_starts_no_line(tmp_path: Path) -> None:
    app = tmp_path / "app.py"
    app.write_text(APP)
    with app_server(app, log=tmp_path / "server.log") as served:
        request = urllib.request.Request(served.url + "tools/lookup", json.dumps({"name": SENT}).encode(),
                                         {"Content-Type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as answered:
            urllib.request.urlopen(request, timeout=30)
        answered.value.close()
        wait_until(lambda: "FORGED" in served.output.rpartition("while reading")[2], "the note in the log")
        log = served.output
    assert f"while reading {WRITTEN}" in log.splitlines(), log
    assert not [line for line in log.splitlines() if line.startswith("INFO     nanohubmcp: FORGED")], log
