"""An output saved as a file that is not one of the run is said as such, with what to fix (trial 70, T70-2).

A Sim2L notebook saving a ``Text`` output as ``file://./../../etc/hostname`` (here the ``label`` notebook echoing
its title) failed inside the notebook, in simtool's ``DB.save``, and the client read only the bare exception:
``the Sim2L tool 'label' failed in code cell 7 (...): FileNotFoundError: File "./../../etc/hostname" does not
exist.``. simtool's refusals of a file (not there, not a file, absolute or starting with ``..``) are now said as an
output saved as a file that is outside the run, or that the run did not write, naming the output; a notebook's own
``FileNotFoundError`` is left as it is.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from support import mcp_client, serve

from nanohubmcp import MCPServer

ECHOES = Path(__file__).parent / "data" / "echoes"
RULE = "an output saved as a file must be a file inside the run"


def _text(result: object) -> str:
    return " ".join(getattr(block, "text", "") for block in getattr(result, "content", []))


@pytest.mark.anyio
@pytest.mark.timeout(300)
async def test_a_file_outside_the_run_or_never_written_is_said_with_what_to_fix(tmp_path: Path) -> None:
    pytest.importorskip("papermill")
    pytest.importorskip("simtool")
    server = MCPServer("sim2l-saved-files", state_dir=str(tmp_path / "state"))
    server.add_sim2l(str(ECHOES / "label.ipynb"))
    said: dict[str, str] = {}
    with serve(server) as url:
        async with mcp_client(url + "mcp") as client:
            for title in ("file://./../../etc/hostname", "file:///etc/hostname", "file://never-written.txt"):
                with anyio.fail_after(120):
                    answer = await client.call_tool("label", {"title": title})
                assert answer.is_error, title
                said[title] = _text(answer)

    outside = said["file://./../../etc/hostname"]
    assert outside.startswith("the Sim2L tool 'label' failed in code cell "), outside
    assert ": its output 'label' was saved as the file './../../etc/hostname', which is outside the run: " + RULE \
        in outside, outside
    assert "(simtool: FileNotFoundError: File \"./../../etc/hostname\" does not exist.)" in outside, outside
    absolute = said["file:///etc/hostname"]
    assert "its output 'label' was saved as a file by an absolute path or one starting with '..', which is " \
        "outside the run: " + RULE in absolute, absolute
    unwritten = said["file://never-written.txt"]
    assert "its output 'label' was saved as the file 'never-written.txt', which the run did not write: " + RULE + \
        ": write it before saving it" in unwritten, unwritten


def test_a_notebooks_own_file_not_found_is_left_as_it_is(tmp_path: Path) -> None:
    from nanohubmcp.sources.sim2l.save_errors import save_failure

    own = ["\x1b[0;31mFileNotFoundError\x1b[0m", "Cell \x1b[0;32mIn[3], line 1\x1b[0m", "open('x')"]
    simtools = ["\x1b[0;31mFileNotFoundError\x1b[0m",
                "File \x1b[0;32m/venv/lib/python3.12/site-packages/simtool/db.py:122\x1b[0m, in \x1b[0;36mDB.save"
                "\x1b[0;34m(self, name, value, display, file, force)\x1b[0m"]
    message = 'File "x.txt" does not exist.'
    notebook = str(tmp_path / "none.ipynb")
    assert save_failure("FileNotFoundError", message, own, str(tmp_path), notebook, ["out"]) is None
    assert save_failure("FileNotFoundError", "[Errno 2] No such file: 'x'", simtools, str(tmp_path), notebook,
                        ["out"]) is None
    assert save_failure("FileNotFoundError", message, simtools, str(tmp_path), notebook, ["out"]) == (
        "an output was saved as the file 'x.txt', which the run did not write: " + RULE + ": write it before saving "
        'it (simtool: FileNotFoundError: File "x.txt" does not exist.)')
