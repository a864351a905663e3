"""A cached tool's own code is keyed by what Python compiled, as its helpers are (a trial finding: the tool's
own key was the SHA-256 of its source, so a comment added in its body, or the function moved down its file,
made every cached call run again after a restart). A changed instruction or constant in it is still a new
key. A script run on one state directory, edited between the runs; the record's code hash (source) is not
the key's concern."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

SCRIPT = '''
import json, sys
from nanohubmcp import MCPServer

server = MCPServer("commented", state_dir=sys.argv[1])
{above}

@server.tool(cache=True)
def simulate(x: int) -> int:
    """Runs the physics."""
{comment}
    return x * {factor}


server.start(port=0)
result = server.call("simulate", {{"x": 2}})
print(json.dumps([int(result.text), result["_meta"]["io.nanohub/cache"]["hit"]]))
server.stop()
'''


def run(tmp_path: Path, factor: int = 3, comment: str = "", above: str = "") -> list[Any]:
    script = tmp_path / "tool.py"
    script.write_text(SCRIPT.format(factor=factor, comment=comment, above=above))
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "state")], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    answer: list[Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return answer


def test_comments_blank_lines_and_the_place_in_the_file_keep_the_key_an_edit_does_not(tmp_path: Path) -> None:
    assert run(tmp_path) == [6, False]
    assert run(tmp_path) == [6, True]
    commented = "    # the physics, simplified\n\n    # (another comment)"
    assert run(tmp_path, comment=commented) == [6, True]  # a comment and a blank line in the tool's body
    assert run(tmp_path, comment=commented, above="\n# moved down\n\n") == [6, True]  # its place in the file
    assert run(tmp_path, factor=4, comment=commented) == [8, False]  # its code changed
    assert run(tmp_path, factor=4) == [8, True]
