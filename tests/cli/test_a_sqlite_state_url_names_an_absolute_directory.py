"""A ``sqlite:`` state URL names an absolute directory, ``sqlite:///DIR``, or is refused at start.

Found by a fresh-user trial (trial34 X7): ``sqlite://state`` took ``state`` as a host and dropped it
(the job store went to the default directory), ``sqlite://relative/dir`` wrote to ``/dir``,
``sqlite:///`` and ``sqlite:///./rel`` to the file system's root, each without a word — where
``redis://`` without a host is refused in one line. Then (trial35 Y7) ``sqlite:tmp`` wrote to ``./tmp`` of the
working directory and ``?mode=ro`` or ``#frag`` were dropped, each without a word.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from nanohubmcp.errors import ConfigurationError
from nanohubmcp.state.url import parse


@pytest.mark.parametrize("url", ["sqlite:///", "sqlite://", "sqlite:", "sqlite://state", "sqlite://relative/dir",
                                 "sqlite:///./rel", "sqlite:///a/../b", "sqlite:///tmp/a%00x", "sqlite://user:secret@host/dir"])
def test_a_host_or_no_usable_directory_is_refused(url: str) -> None:
    with pytest.raises(ConfigurationError, match=r"names (a host|no directory)") as refused:
        parse(url)
    assert "secret" not in str(refused.value)


@pytest.mark.parametrize(("url", "why"), [
    ("sqlite:tmp", "names no absolute directory after three slashes"),  # was ./tmp of the working directory
    ("sqlite:/tmp/state", "names no absolute directory after three slashes"),
    ("sqlite:///tmp/state?mode=ro", "has a query or a fragment"),  # was /tmp/state, the query dropped
    ("sqlite:///tmp/state#frag", "has a query or a fragment"),
    ("sqlite:///tmp/state?", "has a query or a fragment"),
    ("sqlite:///tmp/state?password=secret", "has a query or a fragment"),
])
def test_a_relative_directory_a_query_or_a_fragment_is_refused(url: str, why: str) -> None:
    """trial35 Y7: each was taken without a word."""
    with pytest.raises(ConfigurationError, match=why) as refused:
        parse(url)
    assert "secret" not in str(refused.value)
    assert "\n" not in str(refused.value)


def test_an_absolute_directory_is_taken_with_its_escapes_decoded() -> None:
    assert parse("sqlite:///tmp/state").path == "/tmp/state"
    assert parse("SQLite:///tmp/my%20state/").path == "/tmp/my state/"
    assert parse("sqlite:///tmp/why%3F%23/").path == "/tmp/why?#/"


def test_nanohubmcp_run_refuses_it_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("from nanohubmcp import MCPServer\nserver = MCPServer('x')\n")
    done = subprocess.run([sys.executable, "-m", "nanohubmcp", "run", "app.py", "--port", "0",
                           "--state-url", "sqlite://state"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert "state_url 'sqlite://state' names a host ('state')" in done.stderr, done.stderr


@pytest.mark.parametrize("tail", ["%0a", "a%0db", "%ff", "caf%e9"])
def test_a_control_character_or_an_escape_that_is_no_utf8_is_refused(tmp_path: Path, tail: str) -> None:
    """trial36 Z7: ``%0a`` made a directory named by a line break, ``%ff`` one named by the byte 0xFF."""
    with pytest.raises(ConfigurationError, match="names no directory the job store can use") as refused:
        parse(f"sqlite://{tmp_path}/{tail}")
    assert "\n" not in str(refused.value)


def test_an_existing_file_is_refused_at_construction_not_replaced_by_memory(tmp_path: Path) -> None:
    """trial36 Z7: the server started and kept its jobs in memory, lost at the stop, with a warning at the
    first job only."""
    from nanohubmcp import MCPServer

    (tmp_path / "afile").write_text("")
    for url in (f"sqlite://{tmp_path}/afile", f"sqlite://{tmp_path}/afile/below"):
        with pytest.raises(ConfigurationError, match="afile' is a file, not a directory") as refused:
            MCPServer("sq", state_url=url)
        assert "\n" not in str(refused.value)
    assert parse(f"sqlite://{tmp_path}/new/dir").path == f"{tmp_path}/new/dir"  # missing: made at the first job
