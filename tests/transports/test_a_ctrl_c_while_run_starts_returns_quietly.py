"""A Ctrl-C while a script's ``server.run()`` is still starting (before the banner: importing the transports) printed
a raw ``KeyboardInterrupt`` traceback through ``facade.run -> serving.run -> make_runner`` (trial47 NIT), where one
at the banner or later returns from ``run()`` quietly. Now ``run()`` returns quietly then too; a Ctrl-C in the
script's own code before ``run()`` is still the script's traceback. A real process, a real SIGINT; the start is held
inside ``run()`` by an import hook of the script that blocks the import it names until the signal comes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = """
import sys, time

class Slow:
    def find_spec(self, name, path=None, target=None):
        if name == {held!r}:
            print("importing " + name, flush=True)
            time.sleep(60)  # the Ctrl-C comes meanwhile
        return None

sys.meta_path.insert(0, Slow())
from nanohubmcp import MCPServer

server = MCPServer("early")
{before}
server.run(host="127.0.0.1", port=0)
print("after run", flush=True)
"""


@pytest.mark.parametrize(("held", "before"),
                         [("nanohubmcp.serving.runner", ""), ("heavy_module", "import heavy_module")],
                         ids=["inside-run", "in-the-scripts-own-import"])
def test_a_ctrl_c_while_run_starts(tmp_path: Path, held: str, before: str) -> None:
    script = tmp_path / "app.py"
    script.write_text(SCRIPT.format(held=held, before=before))
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCP_")}
    env.update(HOME=str(tmp_path), NANOHUBMCP_STATE_DIR=str(tmp_path / "state"),
               PYTHONPATH=str(Path(__file__).resolve().parents[2]))  # fmt: skip
    proc = subprocess.Popen([sys.executable, str(script)], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == f"importing {held}"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    if before:  # the script's own code: its KeyboardInterrupt, as Python reports it
        assert proc.returncode == -signal.SIGINT, (proc.returncode, err)
        assert "KeyboardInterrupt" in err, err
        assert "after run" not in out
    else:
        assert proc.returncode == 0, (proc.returncode, err)
        assert err == "", err
        assert out == "after run\n", out
